/**
 * Evaluation of the `and` / `or` keywords (OPA 1.20): each side a closure, the whole expression a
 * test that succeeds at most once; nesting with `not`, `with` and comprehensions; partial
 * evaluation of them.
 */
import { describe, expect, it } from 'vitest'
import { exprToString } from '../../../../compile/print.js'
import { partialEvaluate } from '../../../../core/rego/eval/partial.js'
import { compile, type Policy, parseModule } from '../../../../core/rego/index.js'
import { fromJS, toJS } from '../../../../core/rego/values/index.js'

const IMPORTS =
  'package p\n\nimport future.keywords.and\nimport future.keywords.not\nimport future.keywords.or\n\n'

function policyOf(src: string): Policy {
  return compile({ 'p.rego': parseModule(src, { file: 'p.rego' }) }, {})
}

function dataP(p: Policy, input?: unknown): Record<string, unknown> {
  const run = p.prepare('x := data.p').evalSync(input !== undefined ? { input: fromJS(input) } : {})
  return toJS(run.results[0]?.bindings.get('x') as never) as Record<string, unknown>
}

const POLICY = `${IMPORTS}allow if {
	input.method == "GET" or input.method == "HEAD"
}

deny if {
	input.role == "guest" and startswith(input.path, "/admin")
}

mixed if {
	input.a == 1 and input.b == 2 or input.c == 3
}

negated if {
	not input.banned and input.active
}

braced if {
	input.a or {
		x := input.b
		x == 1
	} and input.c
}

neither if {
	not { input.a or input.b }
}

count_solutions := count([1 | input.a or input.b])

on_one_line if input.x == 1 or input.y == 2
`

describe('and/or: evaluation', () => {
  const p = policyOf(POLICY)

  it('`or` succeeds when either side does, and an undefined side counts as failing', () => {
    expect(dataP(p, { method: 'HEAD' })).toMatchObject({ allow: true })
    expect(dataP(p, { method: 'GET' })).toMatchObject({ allow: true })
    expect(dataP(p, { method: 'PUT' })).not.toHaveProperty('allow')
    expect(dataP(p, {})).not.toHaveProperty('allow')
    expect(dataP(p, { y: 2 })).toMatchObject({ on_one_line: true })
  })

  it('`and` needs both sides', () => {
    expect(dataP(p, { role: 'guest', path: '/admin/x' })).toMatchObject({ deny: true })
    expect(dataP(p, { role: 'guest', path: '/home' })).not.toHaveProperty('deny')
    expect(dataP(p, { path: '/admin' })).not.toHaveProperty('deny')
  })

  it('binds `and` tighter than `or`, and `not` tighter than `and`', () => {
    expect(dataP(p, { c: 3 })).toMatchObject({ mixed: true })
    expect(dataP(p, { a: 1, b: 2 })).toMatchObject({ mixed: true })
    expect(dataP(p, { a: 1, c: 4 })).not.toHaveProperty('mixed')
    expect(dataP(p, { active: true })).toMatchObject({ negated: true })
    expect(dataP(p, { active: true, banned: true })).not.toHaveProperty('negated')
  })

  it('runs a braced side as a body', () => {
    expect(dataP(p, { b: 1, c: true })).toMatchObject({ braced: true })
    expect(dataP(p, { b: 2, c: true })).not.toHaveProperty('braced')
    expect(dataP(p, { a: true })).toMatchObject({ braced: true })
  })

  it('nests inside a not-body, and succeeds once even when both sides hold', () => {
    expect(dataP(p, {})).toMatchObject({ neither: true, count_solutions: 0 })
    expect(dataP(p, { a: true })).not.toHaveProperty('neither')
    expect(dataP(p, { a: true, b: true })).toMatchObject({ count_solutions: 1 })
  })

  it('applies a trailing `with` to both sides', () => {
    const w = policyOf(
      `${IMPORTS}q if input.x == 1\ns if input.y == 2\nt if {\n\tq and s with input as {"x": 1, "y": 2}\n}\nu if {\n\tq or s with input.x as 0\n}\n`,
    )
    expect(dataP(w, {})).toMatchObject({ t: true })
    expect(dataP(w, { x: 1 })).not.toHaveProperty('u')
    expect(dataP(w, { x: 1, y: 2 })).toMatchObject({ u: true })
  })

  it('keeps bindings inside each side: vars bound outside are read, side vars do not escape', () => {
    const q = policyOf(
      `${IMPORTS}r contains x if {\n\tsome x in [1, 2, 3]\n\tx == 1 or x == 3\n}\n\nn := count([1 | { y := 1 } or { y := 2 }])\n`,
    )
    expect(dataP(q)).toMatchObject({ r: [1, 3], n: 1 })
  })

  it('evaluates in functions and comprehension bodies', () => {
    const f = policyOf(
      `${IMPORTS}small(n) if n < 2 or n == 10\nr := [n | some n in [0, 1, 5, 10]; small(n)]\n`,
    )
    expect(dataP(f)).toMatchObject({ r: [0, 1, 10] })
    const c = policyOf(
      `${IMPORTS}c := [n | some n in [1, 2, 3, 4]; n == 1 or n == 4]\ne if every n in [1, 4] { n == 1 or n == 4 }\nf if every n in [1, 3] { n == 1 or n == 4 }\n`,
    )
    expect(dataP(c)).toEqual({ c: [1, 4], e: true })
  })
})

describe('and/or: partial evaluation', () => {
  async function residual(src: string, q: string): Promise<string[]> {
    const result = await partialEvaluate(policyOf(src), q, { unknowns: ['input'] })
    return result.queries.map((b) => b.map(exprToString).join('; '))
  }

  it('gives one query per side of an `or`, one query holding both sides of an `and`', async () => {
    expect(await residual(`${IMPORTS}r if input.a == 1 or input.b == 2\n`, 'data.p.r')).toEqual([
      'input.a = 1',
      'input.b = 2',
    ])
    expect(await residual(`${IMPORTS}r if input.a == 1 and input.b == 2\n`, 'data.p.r')).toEqual([
      'input.a = 1; input.b = 2',
    ])
  })

  it('drops a side known to fail and answers a side known to hold', async () => {
    expect(await residual(`${IMPORTS}r if input.a == 1 or false\n`, 'data.p.r')).toEqual(['input.a = 1'])
    expect(await residual(`${IMPORTS}r if input.a == 1 or true\n`, 'data.p.r')).toEqual([''])
  })
})
