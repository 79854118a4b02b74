/**
 * Policies of the plan differential test: each exercises a part of the subset docs/plan.md lists,
 * with the entrypoints to plan and a generator of inputs that reach both outcomes.
 */

/** A tiny seeded random source, so failures reproduce. */
export type Rand = () => number

/** One policy under test. */
export interface PlanCase {
  name: string
  modules: Record<string, string>
  data?: unknown
  entrypoints: string[]
  /** Entrypoints whose value does not depend on the input. */
  constants?: string[]
  input: (rand: Rand) => unknown
}

const pick = <T>(rand: Rand, xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)] as T
const listOf = <T>(rand: Rand, max: number, item: () => T): T[] =>
  Array.from({ length: Math.floor(rand() * (max + 1)) }, item)

const ROLES = ['admin', 'dev', 'guest', 'ops'] as const
const NAMES = ['alice', 'bob', 'carol', 'dave'] as const

export const PLAN_CASES: readonly PlanCase[] = [
  {
    name: 'complete rules, default, comparisons, not',
    modules: {
      'authz.rego': `package authz
default allow := false
allow if {
  input.user.role == "admin"
  not input.user.suspended
}
allow if {
  input.method == "GET"
  input.user.role != "guest"
  count(input.path) <= 2
}
level := 3 if input.user.role == "admin"
level := 1 if input.user.role == "guest"
`,
    },
    entrypoints: ['authz/allow', 'authz/level'],
    input: (rand) => ({
      user: { role: pick(rand, ROLES), ...(rand() < 0.3 ? { suspended: rand() < 0.5 } : {}) },
      method: pick(rand, ['GET', 'POST']),
      path: listOf(rand, 3, () => pick(rand, ['a', 'b'])),
    }),
  },
  {
    name: 'partial sets and objects, some x in, iteration over input',
    modules: {
      'p.rego': `package p
names contains u.name if {
  some u in input.users
  u.age >= 18
}
by_role[r] := n if {
  some r in ["admin", "dev", "guest", "ops"]
  n := count([u | some u in input.users; u.role == r])
  n > 0
}
pairs contains [k, v] if { some k, v in input.tags }
first_admin := u.name if {
  u := input.users[0]
  u.role == "admin"
}
`,
    },
    entrypoints: ['p/names', 'p/by_role', 'p/pairs', 'p/first_admin'],
    input: (rand) => ({
      users: listOf(rand, 4, () => ({
        name: pick(rand, NAMES),
        age: Math.floor(rand() * 40),
        role: pick(rand, ROLES),
      })),
      tags: Object.fromEntries(listOf(rand, 3, () => [pick(rand, ['x', 'y', 'z']), Math.floor(rand() * 3)])),
    }),
  },
  {
    name: 'functions, else, built-ins with outputs',
    modules: {
      'f.rego': `package f
grade(n) := "high" if n >= 80
else := "mid" if n >= 50
else := "low"
double(x) := y if { y := x * 2 }
scores contains grade(s) if { some s in input.scores }
total := sum(input.scores)
doubled := [double(s) | some s in input.scores]
label := concat("-", [upper(input.name), lower(input.name)]) if is_string(input.name)
`,
    },
    entrypoints: ['f/scores', 'f/total', 'f/doubled', 'f/label'],
    input: (rand) => ({
      scores: listOf(rand, 4, () => Math.floor(rand() * 100)),
      ...(rand() < 0.7 ? { name: pick(rand, NAMES) } : { name: 7 }),
    }),
  },
  {
    name: 'base data, refs with variables, unification of arrays and objects',
    modules: {
      'rbac.rego': `package rbac
import rego.v1
allowed contains perm if {
  some role in data.bindings[input.user]
  some perm in data.roles[role]
}
can if {
  some p in allowed
  [res, act] := split(p, ":")
  res == input.resource
  act == input.action
}
point := {"x": x, "y": y} if {
  [x, y] := input.pair
}
obj_match if {
  {"kind": "pod", "name": name} = input.obj
  startswith(name, "web")
}
`,
    },
    data: {
      bindings: { alice: ['admin'], bob: ['dev', 'viewer'], carol: ['viewer'] },
      roles: { admin: ['db:read', 'db:write', 'web:read'], dev: ['db:read'], viewer: ['web:read'] },
    },
    entrypoints: ['rbac/allowed', 'rbac/can', 'rbac/point', 'rbac/obj_match'],
    input: (rand) => ({
      user: pick(rand, NAMES),
      resource: pick(rand, ['db', 'web']),
      action: pick(rand, ['read', 'write']),
      pair: listOf(rand, 3, () => Math.floor(rand() * 5)),
      obj:
        rand() < 0.6
          ? { kind: pick(rand, ['pod', 'svc']), name: pick(rand, ['web-1', 'db-1']) }
          : { kind: 'pod' },
    }),
  },
  {
    name: 'every, negation with iteration, comprehensions, sets',
    modules: {
      'e.rego': `package e
all_small if {
  every n in input.nums { n < 10 }
}
none_negative if {
  not negative
}
negative if { some n in input.nums; n < 0 }
no_admin if {
  not has_admin
}
has_admin if { some u in input.users; u == "admin" }
uniq := {n | some n in input.nums}
index := {u: i | some i, u in input.users}
both := uniq & {1, 2, 3}
`,
    },
    entrypoints: [
      'e/all_small',
      'e/none_negative',
      'e/negative',
      'e/no_admin',
      'e/uniq',
      'e/index',
      'e/both',
    ],
    input: (rand) => ({
      nums: listOf(rand, 4, () => Math.floor(rand() * 14) - 2),
      users: listOf(rand, 3, () => pick(rand, ['admin', 'dev', 'ops'])),
    }),
  },
  {
    name: 'package entrypoint (virtual document) and rules across packages',
    modules: {
      'a.rego': `package app
import data.lib
deny contains msg if {
  some c in input.containers
  not lib.trusted(c.image)
  msg := sprintf("untrusted image %s", [c.image])
}
allow := count(deny) == 0
`,
      'lib.rego': `package lib
trusted(image) if startswith(image, "registry.local/")
trusted(image) if image in data.allowlist
`,
    },
    data: { allowlist: ['nginx:1.25'], app: { owner: 'team-a' } },
    entrypoints: ['app'],
    input: (rand) => ({
      containers: listOf(rand, 3, () => ({
        image: pick(rand, ['registry.local/api:1', 'nginx:1.25', 'evil/miner:latest']),
      })),
    }),
  },
  {
    name: 'conflicts are errors on both sides',
    modules: {
      'c.rego': `package c
v := x if { some x in input.xs }
o[k] := val if { some k, val in input.kv; val > 0 }
o[k] := 0 if { some k in input.zero }
`,
    },
    entrypoints: ['c/v', 'c/o'],
    input: (rand) => ({
      xs: listOf(rand, 2, () => Math.floor(rand() * 2)),
      kv: Object.fromEntries(listOf(rand, 2, () => [pick(rand, ['a', 'b']), Math.floor(rand() * 2)])),
      zero: listOf(rand, 1, () => pick(rand, ['a', 'c'])),
    }),
  },
]

/** More of the subset: numbers, null, `in`, ref heads, default functions, rule values read by key. */
export const MORE_PLAN_CASES: readonly PlanCase[] = [
  {
    name: 'numbers, null, membership, object.get, ref heads',
    modules: {
      'n.rego': `package n
limits.max := 1e3
limits.ratio := 0.25
big := 12345678901234567890
scaled := input.n * limits.ratio
is_null if input.v == null
member if input.role in {"admin", "ops"}
lookup := object.get(input, ["a", "b"], "none")
small if input.n < limits.max
`,
    },
    entrypoints: ['n/limits', 'n/big', 'n/scaled', 'n/is_null', 'n/member', 'n/lookup', 'n/small'],
    constants: ['n/limits', 'n/big'],
    input: (rand) => ({
      n: pick(rand, [1, 2.5, 4000, -3, 999]),
      ...(rand() < 0.5 ? { v: null } : { v: 1 }),
      role: pick(rand, ROLES),
      ...(rand() < 0.5 ? { a: { b: pick(rand, NAMES) } } : {}),
    }),
  },
  {
    name: 'default functions, functions calling functions, rule values read by key',
    modules: {
      'g.rego': `package g
default cost(_) := 0
cost(item) := item.price * item.qty if item.qty > 0
total_cost := sum([cost(i) | some i in input.items])
limits := {"admin": 100, "dev": 10}
limit := limits[input.role]
over if total_cost > limit
tier(x) := "gold" if x > 50
else := "basic"
tiers := {i.name: tier(cost(i)) | some i in input.items}
`,
    },
    entrypoints: ['g/total_cost', 'g/limit', 'g/over', 'g/tiers'],
    input: (rand) => ({
      role: pick(rand, ROLES),
      items: listOf(rand, 3, () => ({
        name: pick(rand, ['a', 'b', 'c', 'd']),
        price: Math.floor(rand() * 30),
        qty: Math.floor(rand() * 4) - 1,
      })),
    }),
  },
  {
    name: 'with replacing input and base data',
    modules: {
      'w.rego': `package w
admin if input.user.role == "admin"
as_admin if admin with input.user.role as "admin"
guest_view := [admin, allowed] if {
  allowed := data.flags.open with data.flags.open as input.open
}
still_original if {
  admin with input.user.role as "admin"
  not admin
}
`,
    },
    data: { flags: { open: false } },
    entrypoints: ['w/admin', 'w/as_admin', 'w/guest_view', 'w/still_original'],
    constants: ['w/as_admin'],
    input: (rand) => ({ user: { role: pick(rand, ROLES) }, open: rand() < 0.5 }),
  },
  {
    name: 'Rego v0 syntax',
    modules: {
      'v0.rego': `package v0
default allow = false
allow {
  input.user == data.admins[_]
}
names[n] {
  n := input.users[_].name
}
count_by[r] = c {
  r := input.users[_].role
  c := count([u | u := input.users[_]; u.role == r])
}
`,
    },
    data: { admins: ['alice', 'carol'] },
    entrypoints: ['v0/allow', 'v0/names', 'v0/count_by'],
    input: (rand) => ({
      user: pick(rand, NAMES),
      users: listOf(rand, 3, () => ({ name: pick(rand, NAMES), role: pick(rand, ROLES) })),
    }),
  },
]
