/**
 * The authorization policy, in Rego, evaluated by regent's own engine. Input:
 * `{subject: {kind, id, provider, claims, system_id}, grants: [the subject's candidate grants],
 * method, path, action, resource: {kind, id}}`. Data: the built-in roles' actions, what agent
 * tokens may do, and the actions open to every caller. Compiled once per process; only the
 * input changes per request.
 */
import { compile, type PreparedQuery, parseModule } from '../../core/rego/index.js'
import { AGENT_ACTIONS, BUILTIN_ROLES, OPEN_ACTIONS } from './roles.js'

export const POLICY_SOURCE = `package regent.authz

import rego.v1

# The ids of the grants that allow this request.
allowing contains g.id if {
	some g in input.grants
	subject_matches(g)
	resource_matches(g)
	role_allows(g.role, input.action)
}

# Agent tokens act only for their own system, and only as agents do.
agent_allows if {
	is_string(input.subject.system_id)
	input.resource.kind == "system"
	input.resource.id == input.subject.system_id
	input.action in data.agent_actions
}

open_action if input.action in data.open_actions

default allow := false

allow if count(allowing) > 0

allow if agent_allows

allow if open_action

# The roles the subject holds on the resource (what inherit_roles are read from).
held_roles contains g.role if {
	some g in input.grants
	subject_matches(g)
	resource_matches(g)
}

decision := {"allow": allow, "grants": allowing, "roles": held_roles}

role_allows(role, _) if "*" in data.roles[role]

role_allows(role, action) if action in data.roles[role]

resource_matches(g) if g.resource_kind == "workspace"

resource_matches(g) if {
	g.resource_kind == input.resource.kind
	g.resource_id == input.resource.id
}

subject_matches(g) if {
	g.subject_kind == input.subject.kind
	g.subject_id == input.subject.id
}

subject_matches(g) if {
	g.subject_kind == "claim"
	input.subject.kind == "user"
	g.claim_provider in {"", input.subject.provider}
	claim_matches(input.subject.claims[g.claim_key], g.claim_value)
}

claim_matches(_, "*")

claim_matches(claim, value) if claim == value

# A list claim (such as groups) matches when one of its members does.
claim_matches(claim, value) if {
	is_array(claim)
	value in claim
}

# Numbers and booleans match their JSON text.
claim_matches(claim, value) if {
	not is_string(claim)
	not is_array(claim)
	not is_object(claim)
	json.marshal(claim) == value
}
`

/** Compiles the policy with the built-in roles; the result answers `data.regent.authz.decision`. */
export function compileAuthorizationPolicy(): PreparedQuery {
  const roles = Object.fromEntries(BUILTIN_ROLES.map((r) => [r.id, [...r.actions]]))
  const policy = compile(
    { 'authz.rego': parseModule(POLICY_SOURCE, { file: 'authz.rego' }) },
    { roles, agent_actions: [...AGENT_ACTIONS], open_actions: [...OPEN_ACTIONS] },
    { enablePrintStatements: false },
  )
  return policy.prepare('x = data.regent.authz.decision')
}
