/**
 * A v0 module that imports `rego.v1` is RegoV0CompatV1 in OPA, and OPA's compiler runs the v1
 * checks on it as on a v1 module (v1/ast/compile.go: checkImports, checkKeywordOverrides and
 * checkDeprecatedBuiltins all test `c.strict || c.moduleIsRegoV1Compatible(mod)`), outside strict
 * mode too. A plain v0 module stays exempt unless strict.
 */
import { describe, expect, it } from 'vitest'
import { RegoErrors } from '../../../../../core/rego/errors.js'
import { compile, parseModule } from '../../../../../core/rego/index.js'

function v0Errors(src: string): string[] {
  try {
    compile({ 'a.rego': parseModule(src, { file: 'a.rego', regoVersion: 'v0' }) })
    return []
  } catch (err) {
    if (!(err instanceof RegoErrors)) throw err
    return err.errors.map((e) => `${e.code} ${e.location?.row} ${e.message}`)
  }
}

describe('v0 modules importing rego.v1 get the v1 compile checks', () => {
  it('an assignment to input', () => {
    const body = 'p if {\n\tinput := 1\n\tinput == 1\n}\n'
    expect(v0Errors(`package t\nimport rego.v1\n${body}`)).toEqual([
      'rego_compile_error 4 variables must not shadow input (use a different variable name)',
    ])
    expect(v0Errors('package t\np {\n\tinput := 1\n\tinput == 1\n}\n')).toEqual([])
  })

  it('a rule named data', () => {
    expect(v0Errors('package t\nimport rego.v1\ndata := 1\n')).toEqual([
      'rego_compile_error 3 rules must not shadow data (use a different rule name)',
    ])
  })

  it('two imports binding one name', () => {
    expect(v0Errors('package t\nimport rego.v1\nimport data.a\nimport data.a\n')).toEqual([
      'rego_compile_error 4 import must not shadow import data.a',
    ])
    expect(v0Errors('package t\nimport data.a\nimport data.a\n')).toEqual([])
  })

  it('a deprecated built-in', () => {
    expect(v0Errors('package t\nimport rego.v1\np if any([true])\n')).toEqual([
      'rego_type_error 3 deprecated built-in function calls in expression: any',
    ])
    expect(v0Errors('package t\np { any([true]) }\n')).toEqual([])
  })
})
