/**
 * `data-filtering`: a system whose policy the relay's `POST /v1/compile` turns into SQL WHERE
 * clauses or UCAST: the tickets filter of compile-details.md, with its unknowns annotation,
 * a column mask rule and the roles it reads. `regent demo` serves the same policy.
 */
import type { BlueprintInput } from '../definition.js'

/** The tickets data-filter policy (compile-details.md): who may see which tickets. */
export const TICKETS_FILTER_POLICY = `package filters

import rego.v1

# METADATA
# scope: document
# compile:
#   unknowns: [input.tickets, input.users]
#   mask_rule: masks
include if "admin" in data.roles[input.user]

# Readers see tickets assigned to them.
include if {
	"reader" in data.roles[input.user]
	input.users.name == input.user
}

# Resolvers see tickets assigned to them, and unassigned unresolved ones.
include if {
	"resolver" in data.roles[input.user]
	input.users.name == input.user
}

include if {
	"resolver" in data.roles[input.user]
	input.tickets.assignee == null
	input.tickets.resolved == false
}

# Ticket ids are masked for everyone but admins.
default masks := {"tickets": {"id": {"replace": {"value": "<id>"}}}}

masks := {} if "admin" in data.roles[input.user]
`

/** The roles the policy reads as `data.roles`. */
export const TICKETS_ROLES = { alice: ['admin'], bob: ['reader'], caesar: ['resolver'] }

export const dataFilteringBlueprint: BlueprintInput = {
  description:
    'A data-filtering system: the tickets filter policy (unknowns annotation and a column mask rule) ' +
    "and its roles, ready for POST /v1/compile on a relay started from the system's relay-config asset.",
  systems: [
    {
      id: 'data-filtering',
      config: {
        name: 'data-filtering',
        type: 'data-filtering',
        description: "Tickets filtered in the database by the relay's compile endpoint",
      },
      policies: { filters: { 'filters.rego': TICKETS_FILTER_POLICY } },
      data: { roles: TICKETS_ROLES },
    },
  ],
}
