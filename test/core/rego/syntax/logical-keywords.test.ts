/**
 * The `and` / `or` keywords (OPA 1.20, `import future.keywords.and` / `.or`, or `import rego.v2`):
 * parsing and precedence, OPA's AST JSON, the import and capability gates, `opa fmt`'s output, and
 * the compile errors.
 */
import { describe, expect, it } from 'vitest'
import { DEFAULT_BUILTINS } from '../../../../core/rego/builtins/registry.js'
import { lookupFromDeclarations } from '../../../../core/rego/compiler/builtin-info.js'
import { Compiler } from '../../../../core/rego/compiler/compiler.js'
import { RegoErrors } from '../../../../core/rego/errors.js'
import { formatSource } from '../../../../core/rego/format/formatter.js'
import type { Expr, LogicalExpr } from '../../../../core/rego/syntax/ast.js'
import { toOpaJson } from '../../../../core/rego/syntax/json.js'
import { parseModule, parseModuleWithErrors } from '../../../../core/rego/syntax/module-parser.js'

const IMPORTS = 'package p\n\nimport future.keywords.and\nimport future.keywords.or\n\n'

function body(src: string, options = {}): Expr[] {
  const m = parseModule(src, { file: 'p.rego', ...options })
  const b = m.rules[0]?.body
  if (!b) throw new Error('no body')
  return b
}

function logical(e: Expr | undefined): LogicalExpr {
  const t = e?.terms
  if (!t || Array.isArray(t) || (t.type !== 'and' && t.type !== 'or')) throw new Error('not and/or')
  return t
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

describe('and/or: parsing', () => {
  it('builds one expression whose sides are bodies', () => {
    const b = body(`${IMPORTS}r if {\n\tinput.a == 1 or input.b == 2\n}\n`)
    expect(b).toHaveLength(1)
    const t = logical(b[0])
    expect(t.type).toBe('or')
    expect(t.lhs).toHaveLength(1)
    expect(t.rhs).toHaveLength(1)
    expect(t.explicitLhs).toBe(false)
    expect(b[0]?.location?.col).toBe(2)
  })

  it('binds `and` tighter than `or`, and associates chains to the left', () => {
    const mixed = logical(body(`${IMPORTS}r if {\n\tinput.a and input.b or input.c\n}\n`)[0])
    expect(mixed.type).toBe('or')
    expect(logical(mixed.lhs[0]).type).toBe('and')
    const right = logical(body(`${IMPORTS}r if {\n\tinput.a or input.b and input.c\n}\n`)[0])
    expect(right.type).toBe('or')
    expect(logical(right.rhs[0]).type).toBe('and')
    const chain = logical(body(`${IMPORTS}r if {\n\tinput.a or input.b or input.c\n}\n`)[0])
    expect(logical(chain.lhs[0]).type).toBe('or')
    expect(chain.rhs[0]?.terms).toMatchObject({ type: 'ref' })
  })

  it('binds `not` tighter than `and`', () => {
    const t = logical(body(`${IMPORTS}r if {\n\tnot input.banned and input.active\n}\n`)[0])
    expect(t.type).toBe('and')
    expect(t.lhs[0]?.negated).toBe(true)
    expect(t.rhs[0]?.negated).toBeUndefined()
  })

  it('takes braced blocks as explicit sides, and a lone leading brace as a set term', () => {
    const t = logical(
      body(`${IMPORTS}r if {\n\tinput.a or {\n\t\tx := input.b\n\t\tx == 1\n\t} and input.c\n}\n`)[0],
    )
    const and = logical(t.rhs[0])
    expect(and.explicitLhs).toBe(true)
    expect(and.lhs).toHaveLength(2)
    expect(and.explicitRhs).toBe(false)
    const rhsBlock = logical(body(`${IMPORTS}r if { input.a or {input.b} }\n`)[0])
    expect(rhsBlock.explicitRhs).toBe(true)
    const set = body(`${IMPORTS}r if { {1, 2} }\n`)[0]
    expect(set?.terms).toMatchObject({ type: 'set' })
    const lhsBlock = logical(body(`${IMPORTS}r if { {input.a} or input.b }\n`)[0])
    expect(lhsBlock.explicitLhs).toBe(true)
  })

  it('puts a trailing `with` on the whole expression', () => {
    const e = body(`${IMPORTS}r if {\n\tdata.q and data.s with input as 1\n}\n`)[0]
    expect(e?.with).toHaveLength(1)
    const t = logical(e)
    expect(t.lhs[0]?.with).toBeUndefined()
    expect(t.rhs[0]?.with).toBeUndefined()
  })

  it('still calls the `and` / `or` builtins by name, and reads the words as vars without the import', () => {
    const call = body(`${IMPORTS}r if { or({1}, {2}) == {1, 2} }\n`)[0]
    expect(Array.isArray(call?.terms)).toBe(true)
    expect(parseErrors('package p\n\nr if {\n\tinput.a or input.b\n}\n')).toEqual([
      '4:10: unexpected identifier token: expected \\n or ; or }',
    ])
  })

  it('marshals as OPA does: a map with sorted keys, sides as bodies', () => {
    const e = body(`${IMPORTS}r if {\n\tinput.a or {input.b}\n}\n`)[0] as Expr
    const json = toOpaJson(e) as { terms: Record<string, unknown> }
    expect(Object.keys(json.terms)).toEqual(['explicit_lhs', 'explicit_rhs', 'lhs', 'rhs', 'type'])
    expect(json.terms).toMatchObject({
      type: 'or',
      explicit_lhs: false,
      explicit_rhs: true,
      lhs: [{ terms: { type: 'ref' } }],
      rhs: [{ terms: { type: 'ref' } }],
    })
  })
})

describe('and/or: imports and capability gates', () => {
  const USE = 'r if {\n\tinput.a or input.b\n}\n'

  it('enables each keyword by its own import, by bare `future.keywords`, and by `rego.v2`', () => {
    expect(parseErrors(`package p\nimport future.keywords.or\n${USE}`)).toEqual([])
    expect(parseErrors(`package p\nimport future.keywords.and\n${USE}`)[0]).toContain(
      'unexpected identifier token',
    )
    expect(parseErrors(`package p\nimport future.keywords\n${USE}`)).toEqual([])
    expect(parseErrors(`package p\nimport rego.v2\n${USE}`)).toEqual([])
  })

  it('refuses the import when the capabilities lack the keyword, as OPA does', () => {
    const futureKeywords = ['contains', 'every', 'if', 'in', 'not']
    expect(parseErrors(`package p\nimport future.keywords.or\n${USE}`, { futureKeywords })).toEqual([
      '2:8: unexpected keyword, must be one of [contains every if in not]',
    ])
    // A bare `future.keywords` then imports only what is allowed: `or` stays an identifier.
    expect(parseErrors(`package p\nimport future.keywords\n${USE}`, { futureKeywords })[0]).toContain(
      'unexpected identifier token',
    )
  })
})

describe('and/or: formatting', () => {
  it('prints them as written, one line per expression, braced sides as blocks', () => {
    const src = `${IMPORTS}allow if {
\tinput.method == "GET" or input.method == "HEAD"
}

mixed if {
\tnot input.banned and input.active or input.c == 3
}

braced if {
\tinput.a or {
\t\tx := input.b
\t\tx == 1
\t} and input.c
}

audited if {
\tdata.acl.allow and data.acl.audit with input as {"user": "alice"}
}

one_line if input.x == 1 or { input.y == 2 }
`
    const out = formatSource(src, { file: 'p.rego' })
    expect(out).toBe(src)
    expect(formatSource(out, { file: 'p.rego' })).toBe(out)
  })

  it('keeps a line break after the operator, the lines it starts one level deeper', () => {
    const src = `${IMPORTS}chain if {
	input.a and
			input.b or
	input.c and input.d # c
}

commented if {
	input.a and # first
	# second
	input.b
}

braced if {
	{ input.a } or
	{ input.b } or {
		input.c
	} or { input.d }
}
`
    const out = formatSource(src, { file: 'p.rego' })
    expect(out).toBe(`${IMPORTS}chain if {
	input.a and
		input.b or
		input.c and input.d # c
}

commented if {
	input.a and # first
		# second
		input.b
}

braced if {
	{ input.a } or
		{ input.b } or {
			input.c
		} or { input.d }
}
`)
    expect(formatSource(out, { file: 'p.rego' })).toBe(out)
  })
})

describe('and/or: compile errors', () => {
  it('keeps what a side binds inside it: a var bound on one side only is unsafe after', () => {
    expect(compileErrors(`${IMPORTS}r if {\n\t{ x := input.a } or { x := input.b }\n\tx == 1\n}\n`)).toEqual([
      '8: rego_unsafe_var_error: var x is unsafe',
    ])
  })

  it('reports a var a side reads but nothing binds', () => {
    expect(compileErrors(`${IMPORTS}r if {\n\tinput.a or z == 1\n}\n`)).toEqual([
      '7: rego_unsafe_var_error: var z is unsafe',
    ])
  })

  it('accepts vars bound before the expression on both sides', () => {
    expect(compileErrors(`${IMPORTS}r if {\n\tx := input.a\n\tx == 1 or x == 2\n}\n`)).toEqual([])
  })
})
