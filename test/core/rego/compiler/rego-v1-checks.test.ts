import { describe, expect, it } from 'vitest'
import { regoV1Errors } from '../../../../core/rego/compiler/rego-v1-checks.js'
import { parseModule } from '../../../../core/rego/syntax/module-parser.js'

const messages = (src: string) =>
  regoV1Errors(parseModule(src, { file: 'x.rego', regoVersion: 'v0' }), (n) => n === 'any').map(
    (e) => `${e.location?.row}: ${e.code}: ${e.message}`,
  )

describe('regoV1Errors', () => {
  it('reports deprecated calls in bodies and rule heads, keyword rule names and input/data shadowing', () => {
    expect(
      messages(
        'package a\n\np { any([true]) }\n\nq := any([true])\n\nr[any([true])]\n\nif := 1\n\ninput := 2\n',
      ),
    ).toEqual([
      '11: rego_compile_error: rules must not shadow input (use a different rule name)',
      '3: rego_type_error: deprecated built-in function calls in expression: any',
      '5: rego_type_error: deprecated built-in function calls in expression: any',
      '7: rego_type_error: deprecated built-in function calls in expression: any',
      '9: rego_parse_error: if keyword cannot be used for rule name',
    ])
  })

  it('has nothing to say about a module that is fine as v1', () => {
    expect(messages('package a\n\np { all([true]) }\n\nf(x) = x\n')).toEqual([])
  })
})
