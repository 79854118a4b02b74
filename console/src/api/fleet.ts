/**
 * `GET /v1/fleet` (service/routes/fleet.ts): every agent's latest status report, summarised, with
 * the time the service received it. Kept in step with service/fleet.ts by hand: the console
 * imports nothing from the service (docs/console.md).
 */

export interface FleetBundle {
  name: string
  revision: string | null
  /** The git commit of a revision built from git (`<commit>-<digest>`). */
  commit: string | null
  last_successful_activation: string | null
  last_successful_download: string | null
  error: string | null
}

export interface FleetAgent {
  system_id: string | null
  agent_id: string
  kind: 'relay' | 'agent'
  /** When the service received the latest report (the service's clock). */
  received_at: string
  version: string | null
  labels: Record<string, string>
  bundles: FleetBundle[]
  plugins: Record<string, { state: string; message?: string }>
  errors: string[]
  /** The relay this agent reports through, when a relay lists it. */
  via_relay: string | null
  relay_agents?: string[]
}

export interface Fleet {
  /** The service's clock when it answered. */
  now: string
  agents: FleetAgent[]
}
