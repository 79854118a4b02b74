/**
 * Policies for the optimizer's differential test: each one exercises constructs `regent build -O`
 * must rewrite exactly (RBAC over data, functions with defaults and several bodies, `default`,
 * partial sets and objects, `every`, `with`, `not`, `else`), with the entrypoints to optimize and
 * whether the optimizer is expected to rewrite them (false: it must keep them as written).
 */

/** One policy of the differential test. */
export interface DifferentialPolicy {
  name: string
  modules: Record<string, string>
  data: Record<string, unknown>
  entrypoints: string[]
  /** Entrypoints expected to stay as written (the rest must be rewritten). */
  keptAsWritten?: string[]
}

export const POLICIES: DifferentialPolicy[] = [
  {
    name: 'rbac',
    modules: {
      'rbac.rego': `package rbac

default allow := false

allow if {
	some grant in user_grants
	input.action == grant.action
	input.type == grant.type
}

allow if user_is_admin

user_is_admin if "admin" in data.user_roles[input.user]

user_grants contains grant if {
	some role in data.user_roles[input.user]
	some grant in data.role_grants[role]
}
`,
    },
    data: {
      user_roles: { alice: ['admin'], bob: ['dev', 'ops'], carol: ['ops'] },
      role_grants: {
        dev: [
          { action: 'read', type: 'doc' },
          { action: 'write', type: 'doc' },
        ],
        ops: [{ action: 'read', type: 'img' }],
      },
    },
    entrypoints: ['rbac/allow'],
  },
  {
    name: 'functions',
    modules: {
      'fn.rego': `package fn

is_owner(user, res) if res.owner == user

level(x) := 3 if x == "high"

level(x) := 2 if x == "medium"

default level(_) := 1

allow if {
	is_owner(input.user, input.resource)
	level(input.resource.sensitivity) < 3
}

score := level(input.resource.sensitivity) * 10

double(n) := n * 2

big if double(input.n) > 10
`,
    },
    data: {},
    entrypoints: ['fn/allow', 'fn/score', 'fn/big'],
  },
  {
    name: 'sets-and-objects',
    modules: {
      'sets.rego': `package sets

deny contains msg if {
	some c in input.containers
	not startswith(c.image, "registry.local/")
	msg := sprintf("image %v is not from the local registry", [c.image])
}

deny contains "no owner" if not input.owner

labels[k] := v if {
	some k, v in input.labels
	k in data.allowed_labels
}

violations := count(deny)

decision := {"allowed": count(deny) == 0, "labels": labels}
`,
    },
    data: { allowed_labels: ['team', 'tier'] },
    entrypoints: ['sets/deny', 'sets/labels', 'sets/violations', 'sets/decision'],
    // `not input.owner` and `not startswith(...)` over input: negations over unknown refs.
  },
  {
    name: 'every',
    modules: {
      'ev.rego': `package ev

allow if {
	count(input.containers) > 0
	every c in input.containers {
		c.privileged == false
	}
}

all_known if {
	every u in input.users {
		data.known[u]
	}
}
`,
    },
    data: { known: { alice: true, bob: true } },
    entrypoints: ['ev/allow', 'ev/all_known'],
  },
  {
    name: 'with',
    modules: {
      'w.rego': `package w

allow if check with data.threshold as 5

check if input.n > data.threshold

relayed if inner with input as {"n": input.m}

inner if input.n == 1
`,
    },
    data: { threshold: 100 },
    entrypoints: ['w/allow', 'w/relayed'],
    keptAsWritten: ['w/allow', 'w/relayed'],
  },
  {
    name: 'not',
    modules: {
      'nt.rego': `package nt

default allow := false

allow if {
	not deny_user
	input.ok
}

deny_user if input.user in data.blocked

deny_user if input.user == ""

unlisted if not data.listed[input.user]
`,
    },
    data: { blocked: ['mallory', 'eve'], listed: { alice: true } },
    entrypoints: ['nt/allow', 'nt/unlisted'],
    // Fully inlined, `not data.listed[input.user]` becomes `not input.user = "alice"`, which holds
    // without input.user while the original is undefined: the residual must keep that it needs it.
  },
  {
    name: 'else',
    modules: {
      'el.rego': `package el

grade := "A" if input.score >= 90
else := "B" if input.score >= 80
else := "C"

passed if grade != "C"
`,
    },
    data: {},
    entrypoints: ['el/grade', 'el/passed'],
    // Rules with `else` are not partially evaluated (docs/partial-evaluation.md).
    keptAsWritten: ['el/grade'],
  },
]
