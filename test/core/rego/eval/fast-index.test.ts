/**
 * Indexed generators (eval/fast-index.ts): `some x in coll` followed by equalities on fields of `x`
 * must give the answers of the plain scan. Each policy is evaluated over generated collections
 * (arrays with duplicates, objects with string and number keys, sets, nested collections as
 * field values, elements of other types, missing fields, 1 beside 1.0) with the index on, off,
 * and with every fast path off, and the answers or errors compared. The index is built on the
 * second visit of a collection, so each query runs three times with it on.
 */
import { describe, expect, it } from 'vitest'
import type { QueryOptions } from '../../../../core/rego/eval/query.js'
import { compile, parseModule } from '../../../../core/rego/index.js'
import { fromJS, parseJSON, toJSONText, type Value } from '../../../../core/rego/values/index.js'

/** A small deterministic generator (mulberry32), so a failure can be replayed. */
function random(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}

const rnd = random(25)
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rnd() * xs.length)] as T

/** Field values: equal pairs of different representations (1 and 1.0, [1] and [1.0]) on purpose. */
const FIELD_VALUES: unknown[] = [
  'r',
  'w',
  'x',
  1,
  parseJSON('1.0'),
  2,
  parseJSON('2e0'),
  true,
  false,
  null,
  [1, 'x'],
  [parseJSON('1.0'), 'x'],
  { k: 1 },
  new Set(['a', 1]),
]

function element(): unknown {
  const shape = rnd()
  if (shape < 0.08) return pick(['a', 5, null])
  if (shape < 0.12) return ['a', 'b']
  if (shape < 0.16) return new Set(['a', 'b', pick(['r', 'w'])]) // `x.a` of a set is "a" when it holds "a"
  const out: Record<string, unknown> = { id: Math.floor(rnd() * 1000) }
  if (rnd() < 0.85) out.a = pick(FIELD_VALUES)
  if (rnd() < 0.85) out.b = pick(FIELD_VALUES)
  if (rnd() < 0.3) out.n = { m: pick(FIELD_VALUES) }
  return out
}

function collection(kind: number, size: number): unknown {
  const xs = Array.from({ length: size }, element)
  // Duplicates: the same element twice in arrays.
  if (size > 2) xs[size - 1] = xs[0]
  if (kind === 0) return xs
  if (kind === 1) return Object.fromEntries(xs.map((x, i) => [`k${i}`, x]))
  if (kind === 2) return new Map(xs.map((x, i) => [i % 3 === 0 ? i : `k${i}`, x]))
  return new Set(xs)
}

const COLLS: Record<string, unknown> = {}
for (let i = 0; i < 24; i++) COLLS[`c${i}`] = collection(i % 4, pick([0, 3, 8, 12, 40]))

const POLICY = `package p
import rego.v1

two contains [k, x] if {
	some k, x in data.colls[input.c]
	x.a == input.a
	x.b == input.b
}

one contains k if {
	x := data.colls[input.c][k]
	input.a == x.a
}

nested contains k if {
	some k, x in data.colls[input.c]
	x.n.m == input.a
}

whole contains x if {
	some x in data.colls[input.c]
	x == input.a
}

local contains x if {
	coll := data.colls[input.c]
	some x in coll
	x.a == input.a
	x.b == input.b
}

via_var contains k if {
	v := input.a
	some k, x in data.colls[input.c]
	x.a == v
}

binds contains [k, y] if {
	some k, x in data.colls[input.c]
	x.a == input.a
	y := x.b
}

first := k if {
	some k, x in data.colls[input.c]
	x.a == input.a
}
`

const RULES = ['two', 'one', 'nested', 'whole', 'local', 'via_var', 'binds', 'first']

function inputs(): unknown[] {
  const out: unknown[] = []
  for (const c of Object.keys(COLLS)) {
    for (let i = 0; i < 6; i++) {
      const input: Record<string, unknown> = { c }
      if (rnd() < 0.9) input.a = pick(FIELD_VALUES)
      if (rnd() < 0.9) input.b = pick(FIELD_VALUES)
      out.push(input)
    }
  }
  out.push({ c: 'missing', a: 'r', b: 'w' }, { a: 'r' })
  return out
}

const policy = compile({ 'p.rego': parseModule(POLICY, { file: 'p.rego' }) }, { colls: fromJS(COLLS) })

function answer(rule: string, input: unknown, options: QueryOptions): string {
  try {
    const run = policy.prepare(`data.p.${rule}`).evalSync({ ...options, input: fromJS(input) })
    return run.results.map((r) => toJSONText(r.expressions[0]?.value as Value)).join(' | ') || 'undefined'
  } catch (err) {
    return `error: ${(err as { code?: string }).code} ${(err as Error).message}`
  }
}

describe('indexed generators', () => {
  const all = inputs()
  for (const rule of RULES) {
    it(`${rule}: same answers with the index on, off, and without fast paths`, () => {
      for (const input of all) {
        const what = `${rule} with input ${toJSONText(fromJS(input))}`
        const off = answer(rule, input, { generatorIndex: false })
        expect(answer(rule, input, { fastPaths: false }), what).toBe(off)
        for (let i = 0; i < 3; i++) expect(answer(rule, input, {}), `${what}, run ${i}`).toBe(off)
      }
    })
  }

  it('visits only the matching elements once the index is built', () => {
    const data = {
      perms: Array.from({ length: 100 }, (_, i) => ({ action: i % 2 ? 'read' : 'write', resource: `r${i}` })),
    }
    const p = compile(
      {
        'q.rego': parseModule(
          'package q\nimport rego.v1\nallow if {\n\tsome p in data.perms\n\tp.action == input.action\n\tp.resource == input.resource\n\tr := p.resource\n\tr != ""\n}\n',
          { file: 'q.rego' },
        ),
      },
      data,
    ).prepare('data.q.allow')
    const input = fromJS({ action: 'read', resource: 'r99' })
    const scan = p.evalSync({ input, generatorIndex: false })
    p.evalSync({ input }) // first visit: scanned, remembered
    p.evalSync({ input }) // second visit: the index is built
    const indexed = p.evalSync({ input })
    expect(indexed.results).toHaveLength(1)
    expect(scan.results).toHaveLength(1)
    expect(indexed.instructions).toBeLessThan(scan.instructions / 10)
  })

  it('charges the index build: an instruction limit still stops the evaluation', () => {
    const data = { perms: Array.from({ length: 3000 }, (_, i) => ({ action: 'read', resource: `r${i}` })) }
    const p = compile(
      {
        'q.rego': parseModule(
          'package q\nimport rego.v1\nallow if {\n\tsome p in data.perms\n\tp.resource == input.resource\n}\n',
          { file: 'q.rego' },
        ),
      },
      data,
    ).prepare('data.q.allow')
    const input = fromJS({ resource: 'r2999' })
    for (let i = 0; i < 3; i++)
      expect(() => p.evalSync({ input, instructionLimit: 1500 })).toThrow(/instructions limit exceeded/)
    // Once built (without a limit), lookups are cheap and fit.
    p.evalSync({ input })
    expect(p.evalSync({ input, instructionLimit: 1500 }).results).toHaveLength(1)
  })
})
