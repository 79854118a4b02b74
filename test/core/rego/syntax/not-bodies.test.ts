/**
 * Not-bodies (OPA 1.17 `import future.keywords.not`, OPA 1.22 `import rego.v2`): parsing, OPA's AST
 * JSON, the import and capability gates, `opa fmt`'s output, and the compile errors.
 */
import { describe, expect, it } from 'vitest'
import { DEFAULT_BUILTINS } from '../../../../core/rego/builtins/registry.js'
import { lookupFromDeclarations } from '../../../../core/rego/compiler/builtin-info.js'
import { Compiler } from '../../../../core/rego/compiler/compiler.js'
import { RegoErrors } from '../../../../core/rego/errors.js'
import { formatSource } from '../../../../core/rego/format/formatter.js'
import type { Expr } from '../../../../core/rego/syntax/ast.js'
import { toOpaJson } from '../../../../core/rego/syntax/json.js'
import { parseModule, parseModuleWithErrors } from '../../../../core/rego/syntax/module-parser.js'

const IMPORT = 'package p\n\nimport future.keywords.not\n\n'

function firstExpr(src: string, options = {}): Expr {
  const m = parseModule(src, { file: 'p.rego', ...options })
  const e = m.rules[0]?.body[0]
  if (!e) throw new Error('no body')
  return e
}

function parseErrors(src: string, options = {}): string[] {
  return parseModuleWithErrors(src, { file: 'p.rego', ...options }).errors.map(
    (e) => `${e.location?.row}:${e.location?.col}: ${e.message}`,
  )
}

function compileErrors(src: string): string[] {
  try {
    new Compiler({ builtins: lookupFromDeclarations(DEFAULT_BUILTINS) }).compile({
      'p.rego': parseModule(src, { file: 'p.rego' }),
    })
    return []
  } catch (err) {
    if (!(err instanceof RegoErrors)) throw err
    return err.errors.map((e) => `${e.location?.row}: ${e.code}: ${e.message}`)
  }
}

describe('not-bodies: parsing and AST JSON', () => {
  it('parses `not { ... }` as an explicit body, in OPA JSON shape', () => {
    const e = firstExpr(`${IMPORT}r if {\n\tnot {\n\t\tx := input.a\n\t\tx == 1\n\t}\n}\n`)
    expect(e.negated).toBeUndefined()
    const json = toOpaJson(e) as { terms: Record<string, unknown> }
    expect(Object.keys(json.terms)).toEqual(['body', 'explicit_body', 'type'])
    expect(json.terms.type).toBe('not')
    expect(json.terms.explicit_body).toBe(true)
    expect((json.terms.body as unknown[]).length).toBe(2)
  })

  it('wraps `not expr` in an implicit body under the import, moving `with` to the not', () => {
    const e = firstExpr(`${IMPORT}r if {\n\tnot f(input.x) with input.x as 1\n}\n`)
    expect(Array.isArray(e.terms) || e.terms.type).toBe('not')
    const not = e.terms as Extract<Expr['terms'], { type: 'not' }>
    expect(not.explicitBody).toBe(false)
    expect(not.body).toHaveLength(1)
    expect(not.body[0]?.with).toBeUndefined()
    expect(e.with).toHaveLength(1)
    // Both span the whole `not ...` literal, as OPA's parser sets them.
    expect(not.body[0]?.location?.col).toBe(e.location?.col)
  })

  it('keeps legacy negation without the import', () => {
    const e = firstExpr('package p\n\nr if {\n\tnot input.x == 1\n}\n')
    expect(e.negated).toBe(true)
    expect(Array.isArray(e.terms)).toBe(true)
    // `not {...}` without the import is not a body (here, a set that cannot hold `:=`).
    expect(parseErrors('package p\nr if {\n\tnot { x := 1 }\n}\n')).not.toEqual([])
  })

  it('takes the bare `future.keywords` import and `rego.v2` as enabling it, in v0 and v1', () => {
    const plain = 'r if {\n\tnot {\n\t\ttrue\n\t}\n}\n'
    expect(firstExpr(`package p\nimport future.keywords\n${plain}`).terms).toMatchObject({ type: 'not' })
    expect(firstExpr(`package p\nimport rego.v2\n${plain}`).terms).toMatchObject({ type: 'not' })
    // In v0, `rego.v2` implies `rego.v1` too: `if` becomes required.
    const v0 = firstExpr('package p\nimport rego.v2\nr if {\n\tnot { true }\n}\n', { regoVersion: 'v0' })
    expect(v0.terms).toMatchObject({ type: 'not', explicitBody: true })
    expect(parseErrors('package p\nimport rego.v2\nr {\n\ttrue\n}\n', { regoVersion: 'v0' })[0]).toContain(
      '`if` keyword is required',
    )
  })

  it('still refuses `not some` and `not every`', () => {
    expect(parseErrors(`${IMPORT}r if {\n\tnot some x in [1]\n}\n`)[0]).toContain(
      "illegal negation of 'some'",
    )
    expect(parseErrors(`${IMPORT}r if {\n\tnot every x in [1] { x }\n}\n`)[0]).toContain(
      "illegal negation of 'every'",
    )
  })
})

describe('not-bodies: imports and capability gates', () => {
  it('refuses `future.keywords.not` when the capabilities lack the keyword, as OPA does', () => {
    const errs = parseErrors(`${IMPORT}r if true\n`, { futureKeywords: ['contains', 'every', 'if', 'in'] })
    expect(errs).toEqual(['3:8: unexpected keyword, must be one of [contains every if in]'])
    expect(parseErrors(`${IMPORT}r if true\n`)).toEqual([])
  })

  it('lists `not`, `and` and `or` among the keywords a wrong future import may name', () => {
    expect(parseErrors('package p\nimport future.keywords.nope\n')).toEqual([
      '2:8: unexpected keyword, must be one of [and contains every if in not or]',
    ])
  })

  it('refuses `rego.v2` without the rego_v2_import feature, and aliases of it', () => {
    const src = 'package p\nimport rego.v2\nr if true\n'
    expect(parseErrors(src, { features: ['rego_v1'] })).toEqual([
      '2:8: invalid import, `rego.v2` is not supported by current capabilities',
    ])
    expect(parseErrors(src)).toEqual([])
    expect(parseErrors('package p\nimport rego.v2 as r\n')[0]).toContain('`rego` imports cannot be aliased')
    expect(parseErrors('package p\nimport rego.v3\n')[0]).toContain('invalid import `rego.v3`')
  })
})

describe('not-bodies: formatting as opa fmt does', () => {
  it('keeps `not { ... }` bodies and implicit ones as written, and is stable', () => {
    const src = `${IMPORT}a if {\n\tnot {\n\t\tx := input.a\n\t\tx == 1\n\t}\n}\n\nb if not { input.x; input.y }\n\nc if {\n\tnot f(input.x) with input.x as 1\n}\n\nf(x) if x > 0\n`
    const out = formatSource(src, { file: 'p.rego' })
    expect(out).toBe(src)
    expect(formatSource(out, { file: 'p.rego' })).toBe(out)
  })

  it('normalises spacing inside one-line bodies', () => {
    const out = formatSource(`${IMPORT}b if not {input.x;input.y}\n`, { file: 'p.rego' })
    expect(out).toBe(`${IMPORT}b if not { input.x; input.y }\n`)
  })
})

describe('not-bodies: compile checks', () => {
  it('refuses assignment in an implicit body, allows it in an explicit one', () => {
    expect(compileErrors(`${IMPORT}r if {\n\tnot x := input.y\n}\n`)).toEqual([
      '6: rego_compile_error: cannot assign vars inside negated expression',
    ])
    expect(compileErrors(`${IMPORT}r if {\n\tnot {\n\t\tx := input.y\n\t\tx == 1\n\t}\n}\n`)).toEqual([])
  })

  it('scopes what the body binds to the body: using it outside is unsafe', () => {
    expect(compileErrors(`${IMPORT}r if {\n\tnot {\n\t\tx := input.y\n\t}\n\tx == 1\n}\n`)).toEqual([
      '9: rego_unsafe_var_error: var x is unsafe',
    ])
  })

  it('requires a var that the body only reads to be bound somewhere', () => {
    expect(compileErrors(`${IMPORT}r if {\n\tnot {\n\t\tz == 1\n\t}\n}\n`)).toEqual([
      '7: rego_unsafe_var_error: var z is unsafe',
    ])
  })
})
