/**
 * `api-authorization`: a system deciding HTTP API requests (`data.httpapi.authz.allow` with
 * input `{method, path: [segments], user}`), with the people data it reads and its own tests,
 * which `regent test` runs on the system's bundle.
 */
import type { BlueprintInput } from '../definition.js'

const POLICY = `package httpapi.authz

import rego.v1

# METADATA
# description: Whether an HTTP API request is allowed.
# entrypoint: true
default allow := false

# Anyone may read the health endpoint.
allow if {
	input.method == "GET"
	input.path == ["health"]
}

# People read their own profile.
allow if {
	input.method == "GET"
	input.path == ["users", input.user]
}

# Managers read the profiles of the people who report to them.
allow if {
	input.method == "GET"
	some report in data.people.reports[input.user]
	input.path == ["users", report]
}

# Administrators may do anything.
allow if input.user in data.people.admins
`

const TESTS = `package httpapi.authz_test

import rego.v1

import data.httpapi.authz

test_health_is_public if authz.allow with input as {"method": "GET", "path": ["health"]}

test_own_profile if authz.allow with input as {"method": "GET", "path": ["users", "carol"], "user": "carol"}

test_manager_reads_report if authz.allow with input as {"method": "GET", "path": ["users", "carol"], "user": "bob"}

test_no_one_else if not authz.allow with input as {"method": "GET", "path": ["users", "carol"], "user": "dave"}

test_only_admins_write if {
	authz.allow with input as {"method": "DELETE", "path": ["users", "carol"], "user": "alice"}
	not authz.allow with input as {"method": "DELETE", "path": ["users", "carol"], "user": "bob"}
}
`

export const apiAuthorizationBlueprint: BlueprintInput = {
  description:
    'An API-authorization system: data.httpapi.authz.allow over {method, path, user}, the people ' +
    'data it reads (managers and administrators) and its tests.',
  systems: [
    {
      id: 'api-authorization',
      config: { name: 'api-authorization', type: 'api-authorization', description: 'HTTP API authorization' },
      policies: { httpapi: { 'authz.rego': POLICY, 'authz_test.rego': TESTS } },
      data: { people: { admins: ['alice'], reports: { bob: ['carol'] } } },
    },
  ],
}
