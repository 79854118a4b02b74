/**
 * The ground-lookup steps of fast.ts/fast-lookup.ts (`perm.action == input.action`,
 * `perm.resource = input.resource`, `data.x[i] == input.y`) must give the answers of the generic
 * unify/call path: each policy is evaluated with the fast paths on and off and the answers compared,
 * with inputs that make the refs defined, undefined, of other types, or numbers in float form.
 */
import { describe, expect, it } from 'vitest'
import type { QueryOptions } from '../../../../core/rego/eval/query.js'
import { compile, parseModule } from '../../../../core/rego/index.js'
import { fromJS, toJSONText, type Value } from '../../../../core/rego/values/index.js'

const DATA = {
  role_permissions: {
    admin: [
      { action: 'read', resource: 'a' },
      { action: 'write', resource: 'a' },
    ],
    viewer: [{ action: 'read', resource: 'b' }],
    odd: [{ action: 1, resource: ['x', 1] }, 'not an object'],
  },
  user_roles: { alice: ['admin'], bob: ['viewer', 'odd', 'missing'] },
  numbers: { '2': 'two' },
}

const POLICY = `package p
import rego.v1

by_eq contains [role, perm] if {
	some role in data.user_roles[input.user]
	some perm in data.role_permissions[role]
	perm.action == input.action
	perm.resource == input.resource
}

by_unify contains role if {
	some role in data.user_roles[input.user]
	some perm in data.role_permissions[role]
	perm.action = input.action
	input.resource = perm.resource
}

by_neq contains perm.resource if {
	some perm in data.role_permissions.admin
	perm.action != input.action
}

const_side if data.numbers[2] == input.n
less if data.role_permissions.odd[0].action < input.n
missing if data.nothing.here == input.action
both_missing if input.nope == input.nothing
`

const INPUTS: unknown[] = [
  { user: 'alice', action: 'write', resource: 'a', n: 'two' },
  { user: 'alice', action: 'read', resource: 'b' },
  { user: 'bob', action: 'read', resource: 'b', n: 2 },
  { user: 'bob', action: 1, resource: ['x', 1.0], n: 1.5 },
  { user: 'bob', action: 1.0, resource: ['x', 1] },
  { user: 'carol' },
  { action: 'read' },
  {},
]

const RULES = ['by_eq', 'by_unify', 'by_neq', 'const_side', 'less', 'missing', 'both_missing']

const policy = compile({ 'p.rego': parseModule(POLICY, { file: 'p.rego' }) }, DATA)

function answer(rule: string, input: unknown, options: QueryOptions): string {
  const run = policy.prepare(`data.p.${rule}`).evalSync({ ...options, input: fromJS(input) })
  return run.results.map((r) => toJSONText(r.expressions[0]?.value as Value)).join(' | ') || 'undefined'
}

describe('fast ground lookups', () => {
  for (const rule of RULES) {
    it(`${rule}: same answers with and without fast paths`, () => {
      for (const input of INPUTS) {
        const fast = answer(rule, input, {})
        const generic = answer(rule, input, { fastPaths: false })
        expect(fast, `${rule} with input ${JSON.stringify(input)}`).toBe(generic)
      }
    })
  }

  it('finds the permission of a role (and not one of another role)', () => {
    expect(answer('by_eq', INPUTS[0], {})).toBe('[["admin",{"action":"write","resource":"a"}]]')
    expect(answer('by_eq', INPUTS[1], {})).toBe('[]')
    expect(answer('by_unify', INPUTS[4], {})).toBe('["odd"]')
  })

  it('without input, refs over input are undefined', () => {
    const run = policy.prepare('data.p.missing').evalSync({})
    expect(run.results).toHaveLength(0)
  })
})
