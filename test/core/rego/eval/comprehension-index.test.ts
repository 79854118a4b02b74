/**
 * Comprehension indices (compiler/comprehension-index.ts, eval/comprehension-groups.ts): a
 * `var = comprehension` whose body binds the outer vars it reads is computed once, grouped by
 * those vars, as OPA's comprehension cache does. Checked: the answers, that the work is linear,
 * OPA's last-value-wins on a grouped object comprehension's duplicated key, and that `with` and
 * unindexable comprehensions evaluate as usual.
 */
import { describe, expect, it } from 'vitest'
import { compile, parseModule } from '../../../../core/rego/index.js'
import { fromJS, toJSONText, type Value } from '../../../../core/rego/values/index.js'

function prepared(src: string, data: unknown = {}, query = 'data.p') {
  return compile({ 'p.rego': parseModule(src, { file: 'p.rego' }) }, fromJS(data)).prepare(query)
}

function answer(src: string, query: string, input?: unknown): string {
  try {
    const run = prepared(src, {}, query).evalSync(input === undefined ? {} : { input: fromJS(input) })
    return run.results.map((r) => toJSONText(r.expressions[0]?.value as Value)).join(' | ') || 'undefined'
  } catch (err) {
    return `error: ${(err as { code?: string }).code}`
  }
}

describe('comprehension indices', () => {
  it('groups by the outer var: the right answers in linear work', () => {
    const n = 300
    const data = {
      xs: Array.from({ length: n }, (_, i) => i % 10),
      pairs: Array.from({ length: n }, (_, i) => [i % 10, i]),
    }
    const src = `package p
counts := {x: c |
	x := data.xs[_]
	ys := [y | [k, y] := data.pairs[_]; k == x]
	c := count(ys)
}
`
    const run = prepared(src, data, 'data.p.counts').evalSync({})
    const counts = run.results[0]?.expressions[0]?.value as Value
    const json = JSON.parse(toJSONText(counts)) as Record<string, number>
    expect(json['0']).toBe(30)
    expect(json['9']).toBe(30)
    expect(Object.keys(json)).toHaveLength(10)
    // Ungrouped, the inner body runs n times over n pairs (n² = 90,000 iterations). (A key with
    // no group is evaluated as usual, as OPA does: every x here has one.)
    expect(run.instructions).toBeLessThan(20 * n)
  })

  it('keeps the last value of a duplicated key in a grouped object comprehension, as OPA does', () => {
    const src = `package p
obj := o if {
	x := "a"
	o := {k: v | some v in [1, 2]; k := "same"; x = "a"}
}
`
    expect(answer(src, 'data.p.obj')).toBe('{"same":2}')
  })

  it('still reports the conflict when the comprehension is not grouped', () => {
    const src = `package p
obj := {k: v | some v in [1, 2]; k := "same"}
`
    expect(answer(src, 'data.p.obj')).toBe('error: eval_conflict_error')
  })

  it('evaluates as usual when the body reads an outer var it does not bind', () => {
    const src = `package p
bigger := {x: ys | some x in [1, 2, 3]; ys := [y | some y in [1, 2, 3]; y > x]}
`
    expect(answer(src, 'data.p.bigger')).toBe('{"1":[2,3],"2":[3],"3":[]}')
  })

  it('answers a key with no solutions with the empty collection', () => {
    const src = `package p
groups := {x: ys | some x in ["a", "z"]; ys := {y | some y in input.items; y.kind = x}}
`
    const input = {
      items: [
        { kind: 'a', n: 1 },
        { kind: 'b', n: 2 },
      ],
    }
    expect(answer(src, 'data.p.groups', input)).toBe('{"a":[{"kind":"a","n":1}],"z":[]}')
  })

  it('groups again under `with`: the groups of one input are not reused for another', () => {
    const src = `package p
by_kind(k) := ys if ys := [y.n | some y in input.items; y.kind = k]
both := [a, b] if {
	a := by_kind("a")
	b := by_kind("a") with input as {"items": [{"kind": "a", "n": 9}]}
}
`
    const input = { items: [{ kind: 'a', n: 1 }] }
    expect(answer(src, 'data.p.both', input)).toBe('[[1],[9]]')
  })
})
