/**
 * The latest status report of each agent (keyed by `labels.id`, the per-process id OPA sets),
 * kept in memory: status is "latest state", so a newer report replaces an older one and a
 * backlog never builds up (a restart loses at most one interval of reports, which agents resend
 * on their next change). Bounded by count and by age.
 */

/** One agent's latest report. */
export interface AgentStatus {
  agentId: string
  /** The report exactly as received (re-serialised JSON), forwarded upstream as is. */
  body: Record<string, unknown>
  /** The partition the agent posted to (`/v1/status/<partition>`), if any. */
  partition?: string
  receivedAt: Date
  /** Not yet forwarded upstream. */
  pending: boolean
}

/** Latest status per agent. */
export class AgentStatuses {
  private readonly byAgent = new Map<string, AgentStatus>()

  constructor(
    private readonly maxAgents: number,
    private readonly ttlMs: number,
  ) {}

  /** Records a report; the oldest agent is forgotten when the map is full. */
  record(
    agentId: string,
    body: Record<string, unknown>,
    partition: string | undefined,
    now = new Date(),
  ): void {
    this.byAgent.delete(agentId)
    if (this.byAgent.size >= this.maxAgents) {
      const oldest = this.byAgent.keys().next().value
      if (oldest !== undefined) this.byAgent.delete(oldest)
    }
    // Insertion order doubles as age order: the map is re-inserted on every report.
    this.byAgent.set(agentId, { agentId, body, partition, receivedAt: now, pending: true })
  }

  /** Reports not yet forwarded, oldest first. */
  pending(): AgentStatus[] {
    return [...this.byAgent.values()].filter((s) => s.pending)
  }

  /** Marks a report forwarded unless a newer one replaced it meanwhile. */
  markForwarded(status: AgentStatus): void {
    if (this.byAgent.get(status.agentId) === status) status.pending = false
  }

  /** Forgets agents silent for longer than the TTL. */
  expire(now = new Date()): void {
    for (const [id, status] of this.byAgent) {
      if (now.getTime() - status.receivedAt.getTime() <= this.ttlMs) break
      this.byAgent.delete(id)
    }
  }

  /** Every known agent, newest report last. */
  all(): AgentStatus[] {
    return [...this.byAgent.values()]
  }

  get size(): number {
    return this.byAgent.size
  }
}
