/**
 * The fleet: every agent's latest status report (OPA's UpdateRequestV1, as stored by
 * `POST /v1/status`) summarised for people: what it runs (bundle revisions, the git commit of a
 * git-built revision), when the service last heard from it, its plugin states and every error it
 * reports, and which relay it reports through. `GET /v1/fleet` answers these (routes/fleet.ts);
 * the console's Fleet view reads nothing else.
 */

/** One bundle an agent reports. */
export interface FleetBundle {
  name: string
  revision: string | null
  /** The git commit of a revision built from git (`<commit>-<digest>`), else null. */
  commit: string | null
  last_successful_activation: string | null
  last_successful_download: string | null
  /** The bundle's error (`code: message`), null when it reports none. */
  error: string | null
}

/** One agent (an OPA agent, or a relay reporting for itself). */
export interface FleetAgent {
  system_id: string | null
  agent_id: string
  /** `relay` for a regent relay's own report (`labels.type: regent-relay`), else `agent`. */
  kind: 'relay' | 'agent'
  /** When the service received the agent's latest report (the service's clock). */
  received_at: string
  version: string | null
  labels: Record<string, string>
  bundles: FleetBundle[]
  /** Plugin name → state (`OK`, `NOT_READY`, `ERROR`, …) and its message when it has one. */
  plugins: Record<string, { state: string; message?: string }>
  /** Every problem the report states: bundle, discovery and decision-log errors, plugins in ERROR. */
  errors: string[]
  /** The relay (agent id, same system) whose latest report lists this agent, else null. */
  via_relay: string | null
  /** For a relay: the agents it forwards reports for (its `relay_agents`). */
  relay_agents?: string[]
}

/** A stored report row: agent, system, the report's JSON text, its receive time. */
export interface StatusRow {
  agent_id: string
  system_id: string | null
  status: string
  updated_at: string
}

const GIT_REVISION = /^([0-9a-f]{40}|[0-9a-f]{64})-[0-9a-f]{8,64}$/

/** The git commit of a revision built from git (`service/git-source`: `<commit>-<digest>`). */
export function revisionCommit(revision: string | null): string | null {
  if (revision === null) return null
  return GIT_REVISION.exec(revision)?.[1] ?? null
}

type Json = Record<string, unknown>

const asObject = (v: unknown): Json | undefined =>
  typeof v === 'object' && v !== null && !Array.isArray(v) ? (v as Json) : undefined
/** A report is what an agent says: long texts and long lists are cut so one cannot bloat the fleet. */
const MAX_TEXT = 500
const MAX_ENTRIES = 50
const MAX_ERRORS = 20
const MAX_RELAY_AGENTS = 10_000

const asString = (v: unknown): string | null =>
  typeof v === 'string' && v !== '' ? (v.length > MAX_TEXT ? `${v.slice(0, MAX_TEXT)}…` : v) : null

/** The first `MAX_ENTRIES` entries of an object, by key. */
const entriesOf = (v: unknown): Array<[string, unknown]> =>
  Object.entries(asObject(v) ?? {})
    .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
    .slice(0, MAX_ENTRIES)

/** `code: message` of an OPA status entry (bundle, discovery, decision_logs), plus its `errors[]`. */
function entryErrors(entry: Json | undefined, what: string): string[] {
  if (!entry) return []
  const out: string[] = []
  const code = asString(entry.code)
  const message = asString(entry.message)
  if (code || message) {
    const http = asString(entry.http_code)
    out.push(`${what}: ${[code, message].filter(Boolean).join(': ')}${http ? ` (HTTP ${http})` : ''}`)
  }
  if (Array.isArray(entry.errors)) {
    for (const e of entry.errors.slice(0, 10)) {
      const m = asString(asObject(e)?.message) ?? asString(e)
      if (m) out.push(`${what}: ${m}`)
    }
  }
  return out
}

function bundleOf(name: string, entry: Json): FleetBundle {
  const revision = asString(entry.active_revision)
  const [first] = entryErrors(entry, name)
  return {
    name: asString(entry.name) ?? name,
    revision,
    commit: revisionCommit(revision),
    last_successful_activation: asString(entry.last_successful_activation),
    last_successful_download: asString(entry.last_successful_download),
    error: first === undefined ? null : first.slice(name.length + 2),
  }
}

function stringLabels(labels: unknown): Record<string, string> {
  const out: Record<string, string> = {}
  for (const [k, v] of entriesOf(labels)) {
    const text = asString(v)
    if (text !== null) out[k] = text
  }
  return out
}

/** One report summarised; a report that is not JSON any more yields an agent with that error. */
export function summarizeReport(row: StatusRow): FleetAgent {
  let report: Json = {}
  const errors: string[] = []
  try {
    report = asObject(JSON.parse(row.status)) ?? {}
  } catch {
    errors.push('the stored report is not JSON')
  }
  const labels = stringLabels(report.labels)
  const bundles = entriesOf(report.bundles).map(([name, entry]) => bundleOf(name, asObject(entry) ?? {}))
  for (const [name, entry] of entriesOf(report.bundles)) {
    errors.push(...entryErrors(asObject(entry), `bundle ${name}`))
  }
  errors.push(...entryErrors(asObject(report.discovery), 'discovery'))
  errors.push(...entryErrors(asObject(report.decision_logs), 'decision logs'))
  const plugins: FleetAgent['plugins'] = {}
  for (const [name, value] of entriesOf(report.plugins)) {
    const p = asObject(value)
    const state = asString(p?.state) ?? 'UNKNOWN'
    const message = asString(p?.message)
    plugins[name] = message ? { state, message } : { state }
    if (state === 'ERROR') errors.push(`plugin ${name}: ${message ?? 'ERROR'}`)
  }
  if (errors.length > MAX_ERRORS) {
    errors.splice(MAX_ERRORS, errors.length - MAX_ERRORS, `… ${errors.length - MAX_ERRORS} more`)
  }
  const kind = labels.type === 'regent-relay' ? 'relay' : 'agent'
  const agent: FleetAgent = {
    system_id: row.system_id,
    agent_id: row.agent_id,
    kind,
    received_at: row.updated_at,
    version: labels.version ?? null,
    labels,
    bundles,
    plugins,
    errors,
    via_relay: null,
  }
  if (kind === 'relay') {
    const listed = Array.isArray(report.relay_agents) ? report.relay_agents : []
    // A relay tracks at most 10,000 agents (relay/relay.ts); a longer list is not a relay's.
    agent.relay_agents = listed
      .filter((id): id is string => typeof id === 'string')
      .slice(0, MAX_RELAY_AGENTS)
  }
  return agent
}

/** Every report summarised, relays linked (`linkRelays`). */
export function fleetOf(rows: StatusRow[]): FleetAgent[] {
  return linkRelays(rows.map(summarizeReport))
}

/**
 * Sets `via_relay` on agents a relay of the same system lists (when two relays list one agent,
 * the one heard from last wins: the agent moved to it). Returns `agents`.
 */
export function linkRelays(agents: FleetAgent[]): FleetAgent[] {
  const relayOf = new Map<string, FleetAgent>()
  for (const relay of agents) {
    if (relay.kind !== 'relay') continue
    for (const id of relay.relay_agents ?? []) {
      const key = `${relay.system_id ?? ''}\u0000${id}`
      const known = relayOf.get(key)
      if (!known || known.received_at < relay.received_at) relayOf.set(key, relay)
    }
  }
  for (const agent of agents) {
    const relay = relayOf.get(`${agent.system_id ?? ''}\u0000${agent.agent_id}`)
    if (relay && relay !== agent) agent.via_relay = relay.agent_id
  }
  return agents
}
