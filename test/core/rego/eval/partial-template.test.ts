import { afterEach, describe, expect, it } from 'vitest'
import { compileQuery } from '../../../../core/rego/compiler/query.js'
import { partialEvaluateByTemplate } from '../../../../core/rego/eval/partial.js'
import { buildTemplate } from '../../../../core/rego/eval/partial-template.js'
import {
  confirmTemplate,
  setTemplateMode,
  templateFor,
} from '../../../../core/rego/eval/partial-template-cache.js'
import type { Policy } from '../../../../core/rego/eval/policy.js'
import { prepareBody, Scope } from '../../../../core/rego/eval/prepare.js'
import { compile, parseModule, partialEvaluate } from '../../../../core/rego/index.js'
import { parseQuery } from '../../../../core/rego/syntax/query.js'
import { fromJS, type Value } from '../../../../core/rego/values/index.js'

const DATA = { roles: { alice: ['admin'], bob: ['reader'] }, limits: { gold: 10 } }

function policyOf(rules: string): Policy {
  return compile({ 'f.rego': parseModule(`package filters\n${rules}\n`, { file: 'f.rego' }) }, DATA)
}

function prepared(policy: Policy, query: string) {
  const compiled = compileQuery(policy.compiler, parseQuery(query), { rewriteEquals: true })
  const ctx = { root: policy.root, builtins: policy.builtins, isLanguageBuiltin: () => false }
  return prepareBody(ctx, new Scope(), compiled.body)
}

function hasTemplate(
  rules: string,
  unknowns: Value[][] = [
    ['input', 't'],
    ['input', 'u'],
  ],
): boolean {
  const policy = policyOf(rules)
  return buildTemplate(policy, prepared(policy, 'data.filters.include'), unknowns) !== undefined
}

async function residual(policy: Policy, input: unknown) {
  const r = await partialEvaluate(policy, 'data.filters.include', {
    input: fromJS(input),
    unknowns: ['input.t', 'input.u'],
  })
  return { queries: JSON.stringify(r.queries), failed: JSON.stringify(r.failedExpressions) }
}

// Filter rules of the shapes templates cover, each with inputs that make different rules hold.
const POLICIES: [string, unknown[]][] = [
  [
    'include if { input.t.a == 1; input.t.b != input.x }\ninclude if { input.t.a == 2; input.x == "z" }',
    [{ x: 'y' }, { x: 'z' }, {}, { x: { nested: [1, 'two', null] } }, { x: 3.5 }],
  ],
  [
    `include if { "admin" in data.roles[input.user]; input.t.tenant == input.tenant.id }
include if { "reader" in data.roles[input.user]; input.t.tenant == input.tenant.id; input.u.name == input.user }
include if { input.t.owner == input.user; input.t.level <= data.limits[input.plan] }`,
    [
      { user: 'alice', tenant: { id: 2 }, plan: 'gold' },
      { user: 'bob', tenant: { id: 'x' } },
      { user: 'carol', tenant: {}, plan: 'silver' },
      { user: 'bob', tenant: { id: 7 }, plan: 'gold' },
    ],
  ],
  [
    `include if { 1 == input.t.a; input.t.b == 2; input.t.c == input.u.c }
include if { x := input.x; input.t.a == x; x != "skip"; startswith(x, "a") }
include if { y := input.x; y == input.t.d; count(input.list) > 1 }
include if { z := input.t.e; z != input.x; z < 10; w := input.t.f; w >= z }`,
    [{ x: 'abc', list: [1, 2] }, { x: 'skip' }, { x: 'b', list: [] }, { list: 'nope' }, { x: 5 }],
  ],
]

describe('partial evaluation templates', () => {
  afterEach(() => {
    setTemplateMode(undefined)
  })

  it('give the evaluator’s residual and failed expressions for every input', async () => {
    for (const [rules, inputs] of POLICIES) {
      expect(hasTemplate(rules), rules).toBe(true)
      const templated = policyOf(rules)
      const evaluated = policyOf(rules)
      for (const input of inputs) {
        setTemplateMode('off')
        const want = await residual(evaluated, input)
        setTemplateMode(undefined)
        // Twice: the first answer of a rule is checked against the evaluator, the second is the template's.
        expect(await residual(templated, input), `${rules}\n${JSON.stringify(input)}`).toEqual(want)
        expect(await residual(templated, input), `${rules}\n${JSON.stringify(input)}`).toEqual(want)
      }
    }
  })

  it('agree with the evaluator on every request in verify mode', async () => {
    setTemplateMode('verify')
    for (const [rules, inputs] of POLICIES) {
      const policy = policyOf(rules)
      for (const input of inputs) await expect(residual(policy, input)).resolves.toBeDefined()
    }
  })

  it('leave other shapes to the evaluator', () => {
    const others = [
      'include if { not input.t.a == 1 }',
      'include if { input.t.a == 1 with input.x as 2 }',
      'include if { some i; input.t[i] == 1 }',
      'include if { input.t.a == input.xs[_] }',
      'include if { input.t.a == data.filters.other }\nother := 1',
      'default include := false\ninclude if { input.t.a == 1 }',
      'include if { input.t.a == 1 } else := false',
      'include := 2 if { input.t.a == 1 }',
      'include if { f(input.t.a) }\nf(x) if { x == 1 }',
      'include if { x := input.t.a; x == 1 }',
      'include if { input.t.a == time.now_ns() }',
      'include if { x := input.t.a }',
      'include if { input.t.a == data.limits.gold }',
      'include if { input.x == 1 }',
    ]
    for (const rules of others) expect(hasTemplate(rules), rules).toBe(false)
    expect(hasTemplate('include if { input.t.a == 1 }', [['data', 'roles']])).toBe(false)
  })

  it('are confirmed by the evaluator for each rule that holds and each step that ends a rule', async () => {
    const policy = policyOf(
      'include if { input.t.a == 1; input.x == "y" }\ninclude if { input.t.b == 2; input.z == 3 }',
    )
    const query = 'data.filters.include'
    const template = templateFor(policy, query, prepared(policy, query), [
      ['input', 't'],
      ['input', 'u'],
    ])
    const [first, second] = template?.rules ?? []
    const confirmed = () => [
      first?.verified,
      first?.steps[0]?.verified,
      second?.verified,
      second?.steps[0]?.verified,
    ]
    expect(confirmed()).toEqual([false, false, false, false])
    await residual(policy, { x: 'y' })
    expect(confirmed()).toEqual([true, false, false, true])
    await residual(policy, { x: 'n', z: 3 })
    expect(confirmed()).toEqual([true, true, true, true])
  })

  it('drop a template the evaluator disagrees with', async () => {
    const policy = policyOf('include if { input.t.a == input.x }')
    const body = prepared(policy, 'data.filters.include')
    const unknowns: Value[][] = [['input', 't']]
    expect(templateFor(policy, 'data.filters.include', body, unknowns)).toBeDefined()
    const direct = await partialEvaluate(policy, 'data.filters.include', {
      input: fromJS({ x: 1 }),
      unknowns: ['input.t'],
    })
    confirmTemplate(
      policy,
      'data.filters.include',
      unknowns,
      { queries: [], failed: [], unverified: [] },
      direct,
    )
    expect(templateFor(policy, 'data.filters.include', body, unknowns)).toBeUndefined()
  })

  describe('alone (partialEvaluateByTemplate, for a thread that never runs the evaluator)', () => {
    const QUERY = 'data.filters.include'
    const RULES =
      'include if { input.t.a == input.x; startswith(input.x, "a") }\ninclude if { input.t.b == 2; input.y > 1 }'
    const everyBuiltin = () => true
    const byTemplate = (policy: Policy, input: unknown, admit: (name: string) => boolean = everyBuiltin) =>
      partialEvaluateByTemplate(
        policy,
        QUERY,
        { input: fromJS(input), unknowns: ['input.t', 'input.u'] },
        admit,
      )

    it('give the evaluator’s residual, unconfirmed until confirmed, then confirmed', async () => {
      const policy = policyOf(RULES)
      const inputs = [{ x: 'abc', y: 2 }, { x: 'b', y: 0 }, { x: 'a' }, { y: 5 }]
      for (const input of inputs) {
        setTemplateMode('off')
        const want = await residual(policyOf(RULES), input)
        setTemplateMode(undefined)
        const first = byTemplate(policy, input)
        if (typeof first === 'string') throw new Error(first)
        const got = {
          queries: JSON.stringify(first.result.queries),
          failed: JSON.stringify(first.result.failedExpressions),
        }
        expect(got, JSON.stringify(input)).toEqual(want)
        first.confirm()
        const again = byTemplate(policy, input)
        expect(typeof again === 'string' ? again : again.confirmed, JSON.stringify(input)).toBe(true)
      }
    })

    it('start unconfirmed, and confirm only the rules and steps the answer rested on', () => {
      const policy = policyOf(RULES)
      const a = byTemplate(policy, { x: 'abc', y: 0 })
      if (typeof a === 'string') throw new Error(a)
      expect(a.confirmed).toBe(false)
      a.confirm()
      // Another input: the second rule holds now, which nothing has confirmed yet.
      const b = byTemplate(policy, { x: 'abc', y: 5 })
      expect(typeof b === 'string' ? b : b.confirmed).toBe(false)
      const c = byTemplate(policy, { x: 'abc', y: 0 })
      expect(typeof c === 'string' ? c : c.confirmed).toBe(true)
    })

    it('have no template after a rejection, for a refused built-in, or in verify mode', () => {
      const policy = policyOf(RULES)
      expect(byTemplate(policy, { x: 'a' }, (name) => name !== 'startswith')).toBe('no template')
      setTemplateMode('verify')
      expect(byTemplate(policy, { x: 'a' })).toBe('no template')
      setTemplateMode(undefined)
      const r = byTemplate(policy, { x: 'a' })
      if (typeof r === 'string') throw new Error(r)
      r.reject()
      expect(byTemplate(policy, { x: 'a' })).toBe('no template')
      expect(byTemplate(policyOf('include if { not input.t.a == 1 }'), {})).toBe('no template')
    })

    it('report a built-in that fails on this input, which the evaluator handles', () => {
      const policy = policyOf('include if { input.t.a == input.x; to_number(input.n) > 1 }')
      expect(typeof byTemplate(policy, { x: 1, n: '12' })).toBe('object')
      expect(byTemplate(policy, { x: 1, n: 'twelve' })).toBe('built-in failed')
    })
  })
})
