/**
 * Cases from OPA's own compiler table tests (v1/ast/compile_test.go, check_test.go), each run
 * through regent's whole compiler: the errors OPA reports (code and message), or none.
 */
import { describe, expect, it } from 'vitest'
import { checkModules, compile, evaluate, parseModule } from '../../../../core/rego/index.js'

/** The errors of compiling `sources` as mod0.rego, mod1.rego, ...: `code: message` each. */
function errorsOf(sources: string[]): string[] {
  const modules = Object.fromEntries(
    sources.map((src, i) => [`mod${i}.rego`, parseModule(src, { file: `mod${i}.rego` })]),
  )
  return checkModules(modules).map((e) => `${e.code}: ${e.message}`)
}

describe('rule conflicts', () => {
  it('a package that is a rule of another package is printed as OPA prints a package', () => {
    expect(errorsOf(['package pkg.q\nr if { true }', 'package pkg.q.r'])).toEqual([
      'rego_type_error: package pkg.q.r conflicts with rule r defined at mod0.rego:2',
    ])
  })
})

describe('undefined functions', () => {
  it('a dynamic call names the vars as written, also inside a composite key', () => {
    const errors = errorsOf([
      'package test\n\np if {\n\tz := "f"\n\tdata.test2[[z]](1)\n}',
      'package test2\n\nf(x) := x',
    ])
    expect(errors).toEqual(['rego_type_error: undefined function data.test2[[z]]'])
  })
})

describe('keyword overrides', () => {
  it('an assignment to input inside a comprehension in a rule head is reported', () => {
    expect(errorsOf(['package test\n\np := [x | input := 1; x := 2]'])).toEqual([
      'rego_compile_error: variables must not shadow input (use a different variable name)',
    ])
  })
})

describe('some-in declarations', () => {
  it('a var declared above cannot be declared again by some-in over a literal collection', () => {
    expect(errorsOf(['package test\n\np if {\n\tsome x\n\tsome i, x in []\n}'])).toEqual([
      'rego_compile_error: var x declared above',
    ])
  })
})

describe('safety of unification', () => {
  it('a var bound by an equality does not make a ref on it safe in the same equality', () => {
    expect(errorsOf(['package test\n\np if {\n\t[x, y] = [input, x[0]]\n}'])).toEqual([
      'rego_unsafe_var_error: var y is unsafe',
    ])
  })
})

describe('with targets holding a var', () => {
  const src = 'package test\n\np if {\n\tx := "foo"\n\ttrue with input[x] as 1\n}'

  it('compile, as OPA compiles them (compile_test "with: rewrite target")', () => {
    expect(errorsOf([src])).toEqual([])
  })

  it('fail on input at evaluation, as OPA cannot merge the path', async () => {
    const policy = compile({ 'mod0.rego': parseModule(src, { file: 'mod0.rego' }) })
    await expect(evaluate('data.test.p', undefined, { policy })).rejects.toThrow('bad document path')
  })
})

describe('print calls', () => {
  it('a var output by a ref on a call result is declared for print (compile_test "print output of nested call")', () => {
    expect(errorsOf(['package test\n\np if {\n\tx := split("abc", "")[y]\n\tprint(x, y)\n}'])).toEqual([])
  })
})
