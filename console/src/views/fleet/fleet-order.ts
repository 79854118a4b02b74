/**
 * The fleet as the view shows it: each agent's health (stale when no report came within the
 * threshold, erroring when its report states a problem), systems in order of their worst agent,
 * and within a system the relays with the agents behind them. Pure functions, tested without a
 * browser (test/console/fleet-order.test.ts).
 */
// The `.js` suffix lets the service's TypeScript project (which runs this file's test) resolve it too.
import type { FleetAgent } from '../../api/fleet.js'

/** Default threshold: 5 minutes, 3× an agent's usual status interval with room for a missed post. */
export const DEFAULT_STALE_SECONDS = 300

export type Health = 'stale' | 'error' | 'not-ready' | 'ok'

export interface AgentRow {
  agent: FleetAgent
  /** Milliseconds since the service received its latest report. */
  ageMs: number
  stale: boolean
  erroring: boolean
  /** Some plugin is not OK (starting, or not ready) without stating an error. */
  notReady: boolean
  /** Rank for ordering: stale and erroring first. */
  rank: number
  /** Indented under its relay. */
  behindRelay: boolean
}

export interface SystemGroup {
  systemId: string | null
  rows: AgentRow[]
  stale: number
  erroring: number
}

/** The health of one agent at the service's time `now` (ms). */
export function agentRow(agent: FleetAgent, nowMs: number, staleMs: number): AgentRow {
  const ageMs = Math.max(0, nowMs - Date.parse(agent.received_at))
  const stale = !(ageMs <= staleMs)
  const erroring = agent.errors.length > 0
  const notReady = !erroring && Object.values(agent.plugins).some((p) => p.state !== 'OK')
  // Stale outranks erroring (a silent agent may be failing in ways it cannot report); both
  // together rank highest; not-ready agents come before healthy ones.
  const rank = stale || erroring ? (stale ? 2 : 0) + (erroring ? 1 : 0) : notReady ? 0.5 : 0
  return { agent, ageMs, stale, erroring, notReady, rank, behindRelay: false }
}

const byRankThenId = (a: AgentRow, b: AgentRow) =>
  b.rank - a.rank || a.agent.agent_id.localeCompare(b.agent.agent_id)

/**
 * Groups by system, worst first. In a group, relays and direct agents are ordered stale and
 * erroring first; each relay is followed by the agents behind it, in the same order.
 */
export function groupFleet(agents: FleetAgent[], nowMs: number, staleMs: number): SystemGroup[] {
  const bySystem = new Map<string | null, AgentRow[]>()
  for (const agent of agents) {
    const rows = bySystem.get(agent.system_id) ?? []
    rows.push(agentRow(agent, nowMs, staleMs))
    bySystem.set(agent.system_id, rows)
  }
  const groups: SystemGroup[] = []
  for (const [systemId, rows] of bySystem) {
    const relays = new Set(rows.filter((r) => r.agent.kind === 'relay').map((r) => r.agent.agent_id))
    const behind = new Map<string, AgentRow[]>()
    const top: AgentRow[] = []
    for (const row of rows) {
      const relay = row.agent.via_relay
      if (relay !== null && relays.has(relay)) {
        row.behindRelay = true
        behind.set(relay, [...(behind.get(relay) ?? []), row])
      } else top.push(row)
    }
    // A relay ranks as its worst agent, so a relay hiding a stale agent is not at the bottom.
    const groupRank = (r: AgentRow) =>
      Math.max(r.rank, ...(behind.get(r.agent.agent_id) ?? []).map((b) => b.rank))
    top.sort((a, b) => groupRank(b) - groupRank(a) || byRankThenId(a, b))
    const ordered = top.flatMap((r) => [r, ...(behind.get(r.agent.agent_id) ?? []).sort(byRankThenId)])
    groups.push({
      systemId,
      rows: ordered,
      stale: rows.filter((r) => r.stale).length,
      erroring: rows.filter((r) => r.erroring).length,
    })
  }
  const worst = (g: SystemGroup) => Math.max(...g.rows.map((r) => r.rank))
  return groups.sort((a, b) => worst(b) - worst(a) || (a.systemId ?? '').localeCompare(b.systemId ?? ''))
}

/** The groups with only their stale or erroring agents; groups left empty are dropped. */
export function onlyFlagged(groups: SystemGroup[]): SystemGroup[] {
  return groups
    .map((g) => ({ ...g, rows: g.rows.filter((r) => r.stale || r.erroring) }))
    .filter((g) => g.rows.length > 0)
}

/** A threshold typed by the reader (`90`, `5m`, `2h`) in seconds, or undefined when unreadable. */
export function parseThreshold(text: string | null): number | undefined {
  if (text === null) return undefined
  const m = /^\s*(\d{1,7})\s*(s|m|h)?\s*$/i.exec(text)
  if (!m) return undefined
  const n = Number(m[1]) * { s: 1, m: 60, h: 3600 }[(m[2] ?? 's').toLowerCase() as 's' | 'm' | 'h']
  return n > 0 ? n : undefined
}

/** First 12 hex digits of a commit or revision, as git abbreviates. */
export function shortRevision(revision: string): string {
  return revision.length > 20 ? `${revision.slice(0, 12)}…` : revision
}
