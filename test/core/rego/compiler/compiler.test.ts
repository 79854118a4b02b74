import { describe, expect, it } from 'vitest'
import { DEFAULT_BUILTINS } from '../../../../core/rego/builtins/registry.js'
import { lookupFromDeclarations } from '../../../../core/rego/compiler/builtin-info.js'
import { Compiler, STAGES } from '../../../../core/rego/compiler/compiler.js'
import { compileQuery } from '../../../../core/rego/compiler/query.js'
import { bodyString, refString } from '../../../../core/rego/compiler/text.js'
import { RegoErrors } from '../../../../core/rego/errors.js'
import { parseModule, parseQuery } from '../../../../core/rego/index.js'

const builtins = lookupFromDeclarations(DEFAULT_BUILTINS)

function compile(src: string, options: { strict?: boolean; maxErrors?: number } = {}): Compiler {
  return new Compiler({ builtins, ...options }).compile({
    'test.rego': parseModule(src, { file: 'test.rego' }),
  })
}

function errorsOf(src: string, options: { strict?: boolean; maxErrors?: number } = {}): string[] {
  try {
    compile(src, options)
    return []
  } catch (err) {
    if (!(err instanceof RegoErrors)) throw err
    return err.errors.map((e) => `${e.code}: ${e.message}`)
  }
}

function bodyOf(c: Compiler, name: string): string {
  for (const m of c.sortedModules())
    for (const r of m.rules) if (refString(r.head.ref) === name) return bodyString(r.body)
  throw new Error(`no rule ${name}`)
}

describe('compiler stages', () => {
  it('runs the stages in OPA order, resolution first and indices last', () => {
    const names = STAGES.map((s) => s.name)
    expect(names[0]).toBe('ResolveRefs')
    expect(names.indexOf('RewriteLocalVars')).toBeLessThan(names.indexOf('RewriteExprTerms'))
    expect(names.indexOf('CheckSafetyRuleBodies')).toBeLessThan(names.indexOf('RewriteDynamicTerms'))
    expect(names.slice(-2)).toEqual(['BuildRuleIndices', 'BuildComprehensionIndices'])
  })

  it('rewrites == to = after the safety checks and before refs are moved out of calls', () => {
    const names = STAGES.map((s) => s.name)
    expect(names.indexOf('CheckSafetyRuleBodies')).toBeLessThan(names.indexOf('RewriteEquals'))
    expect(names.indexOf('RewriteEquals')).toBe(names.indexOf('RewriteDynamicTerms') - 1)
  })

  it('keeps the ref of `not a == b` inside the negation, in every kind of body', () => {
    const c = compile(
      'package a\nr if not input.x == 1\nf(v) if { every k in [1] { not v.y == k } }\ns := [1 | not input.x == 1]\nn if not input.x != 1',
    )
    expect(bodyOf(c, 'r')).toBe('not input.x = 1')
    expect(bodyOf(c, 'f')).toMatch(/not __local\d+__\.y = __local\d+__/)
    expect(bodyOf(c, 's')).toMatch(/\[1 \| not input\.x = 1\]/)
    // Only == is rewritten: the operands of other comparisons are still bound first.
    expect(bodyOf(c, 'n')).toMatch(/^__local\d+__ = input\.x; not __local\d+__ != 1$/)
  })

  it('keeps == in ad-hoc queries, and rewrites it for partial evaluation as OPA does', () => {
    const c = compile('package a')
    expect(bodyString(compileQuery(c, parseQuery('not input.x == 1')).body)).toMatch(
      /^__localq\d+__ = input\.x; not __localq\d+__ == 1$/,
    )
    const partial = compileQuery(c, parseQuery('not input.x == 1'), { rewriteEquals: true })
    expect(bodyString(partial.body)).toBe('not input.x = 1')
  })

  it('resolves package rules and imports to data refs', () => {
    const c = compile('package a\nimport data.lib.roles as r\np if r[_] == q\nq := 1')
    expect(bodyOf(c, 'p')).toContain('data.lib.roles[')
    expect(bodyOf(c, 'p')).toContain('data.a.q')
  })

  it('rewrites := to = on generated vars and keeps the user name for queries', () => {
    const c = compile('package a\np := 1')
    const q = compileQuery(c, parseQuery('x := data.a.p; y := x + 1'))
    expect(bodyString(q.body)).toMatch(/__localq\d+__ = data\.a\.p/)
    expect([...q.rewrittenVars.values()].sort()).toEqual(['x', 'y'])
  })

  it('reorders bodies so that vars are bound before use', () => {
    const c = compile('package a\np if {\n  count(a) > 0\n  a = [1]\n}')
    const body = bodyOf(c, 'p')
    expect(body.indexOf('a = [1]')).toBeGreaterThanOrEqual(0)
    expect(body.indexOf('a = [1]')).toBeLessThan(body.indexOf('count('))
  })

  it('lifts nested calls into their own expressions', () => {
    const c = compile('package a\np := count([1, 2]) + 1')
    expect(bodyOf(c, 'p')).toMatch(/count\(\[1, 2\], __local\d+__\); plus\(__local\d+__, 1, __local\d+__\)/)
  })

  it('reports unsafe variables with their user names', () => {
    expect(errorsOf('package a\np if {\n  x := y\n}')).toContain('rego_unsafe_var_error: var y is unsafe')
  })

  it('reports an unsafe query variable once, not the capture of its expression as well', () => {
    const c = compile('package a\np := 1')
    for (const query of ['y > 1', 'x = 1; y > x']) {
      let messages: string[] = []
      try {
        compileQuery(c, parseQuery(query), { captureValues: true })
      } catch (err) {
        messages = (err as RegoErrors).errors.map((e) => e.message)
      }
      expect(messages, query).toEqual(['var y is unsafe'])
    }
  })

  it('stops after the error limit', () => {
    const src = `package a\n${Array.from({ length: 5 }, (_, i) => `p${i} if x${i} > 1`).join('\n')}`
    const errs = errorsOf(src, { maxErrors: 2 })
    expect(errs).toHaveLength(3)
    expect(errs[2]).toBe('rego_compile_error: error limit reached')
  })

  it('reports recursion with the cycle', () => {
    expect(errorsOf('package a\np if q\nq if p')[0]).toMatch(
      /rego_recursion_error: rule (p|q) is recursive: (p -> q -> p|q -> p -> q)/,
    )
  })

  it('applies strict checks only with -S', () => {
    const unusedImport = 'package a\nimport data.unused\np := 1'
    const unusedVar = 'package a\np if {\n  x := 1\n  true\n}'
    expect(errorsOf(unusedImport)).toEqual([])
    expect(errorsOf(unusedVar)).toEqual([])
    expect(errorsOf(unusedImport, { strict: true })).toEqual([
      'rego_compile_error: import data.unused unused',
    ])
    expect(errorsOf(unusedVar, { strict: true })).toEqual(['rego_compile_error: assigned var x unused'])
  })

  it('builds the rule tree at ground prefixes and marks early exit', () => {
    const c = compile(
      'package a\nallow if input.x == 1\nallow if input.y == 2\nusers[name] := 1 if some name in ["a"]',
    )
    const allow = c.ruleTree.lookup([
      { type: 'string', value: 'a' },
      { type: 'string', value: 'allow' },
    ])
    expect(allow?.rules).toHaveLength(2)
    const index = allow ? c.ruleIndices.get(allow) : undefined
    expect(index?.earlyExit).toBe(true)
    expect(index?.constraints.map((cs) => cs.length)).toEqual([1, 1])
    const users = c.ruleTree.lookup([
      { type: 'string', value: 'a' },
      { type: 'string', value: 'users' },
    ])
    expect(users?.rules).toHaveLength(1)
  })
})
