/**
 * `edge-relay`: a system meant to be served through a regent relay beside its agents: a small
 * allow policy plus a decision-log mask (`data.system.log.mask`) that keeps passwords out of the
 * logs the relay buffers and uploads. Its relay configuration is the system's `relay-config`
 * asset (`GET /v1/systems/edge-relay/assets/relay-config`).
 */
import type { BlueprintInput } from '../definition.js'

const POLICY = `package edge

import rego.v1

default allow := false

allow if input.user in data.edge.operators
`

const LOG_MASK = `package system.log

import rego.v1

# Passwords never reach the decision log the relay buffers and uploads.
mask contains "/input/password"
`

export const edgeRelayBlueprint: BlueprintInput = {
  description:
    'A system served through a regent relay: an allow policy and a decision-log mask. ' +
    'Start the relay from GET /v1/systems/edge-relay/assets/relay-config.',
  systems: [
    {
      id: 'edge-relay',
      config: { name: 'edge-relay', type: 'edge-relay', description: 'Agents behind a regent relay' },
      policies: { edge: { 'edge.rego': POLICY }, 'system/log': { 'mask.rego': LOG_MASK } },
      data: { edge: { operators: ['alice'] } },
    },
  ],
}
