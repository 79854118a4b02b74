/**
 * The relay's own status, in two shapes: the operator's view (`GET /v1/relay/status`: what is
 * served, how old it is, what went wrong upstream, how many agents and waiters) and OPA's status
 * report shape (UpdateRequestV1), posted upstream so the control plane sees the relay beside its
 * agents.
 */
import type { BundleCache, TargetState } from '../../plugins/bundle/bundle-cache.js'
import type { AgentStatuses } from '../../plugins/status/agent-statuses.js'

/** Facts about this relay process. */
export interface RelayIdentity {
  /** Per-process id, like an OPA agent's `labels.id`. */
  id: string
  version: string
  startedAt: Date
  labels: Record<string, string>
}

/** What extensions (decision logs) add to the status, keyed by extension name. */
export type ExtensionStatus = () => Record<string, unknown>

export interface RelayStatusSources {
  identity: RelayIdentity
  cache: BundleCache
  agents: AgentStatuses
  upstream: { lastContact?: Date; lastSuccessfulContact?: Date }
  extensions: Map<string, ExtensionStatus>
}

/** The body of `GET /v1/relay/status`. */
export function relayStatusView(sources: RelayStatusSources, now = new Date()): Record<string, unknown> {
  const { identity, cache, agents, upstream } = sources
  const view: Record<string, unknown> = {
    relay: {
      id: identity.id,
      version: identity.version,
      started_at: identity.startedAt.toISOString(),
      uptime_seconds: Math.round((now.getTime() - identity.startedAt.getTime()) / 1000),
      labels: identity.labels,
    },
    ready: cache.all().every((s) => !s.target.required || s.served !== undefined),
    upstream: {
      last_contact: upstream.lastContact?.toISOString() ?? null,
      last_successful_contact: upstream.lastSuccessfulContact?.toISOString() ?? null,
    },
    bundles: Object.fromEntries(cache.all().map((s) => [s.target.name, targetView(s, now)])),
    long_poll: { waiters: cache.waiters.count },
    agents: {
      count: agents.size,
      latest: agents.all().map((a) => ({
        id: a.agentId,
        received_at: a.receivedAt.toISOString(),
        partition: a.partition ?? null,
        labels: a.body.labels ?? {},
        forwarded: !a.pending,
      })),
    },
  }
  for (const [name, status] of sources.extensions) view[name] = status()
  return view
}

function targetView(s: TargetState, now: Date): Record<string, unknown> {
  const served = s.served
  return {
    kind: s.target.kind,
    resource: s.target.resource,
    service: s.target.service,
    revision: served?.revision ?? null,
    etag: served?.etag ?? null,
    size: served?.bytes.byteLength ?? null,
    verified_at: served?.verifiedAt.toISOString() ?? null,
    age_seconds: served ? Math.round((now.getTime() - served.verifiedAt.getTime()) / 1000) : null,
    source: served?.source ?? null,
    last_request: s.lastRequest?.toISOString() ?? null,
    last_successful_request: s.lastSuccessfulRequest?.toISOString() ?? null,
    last_successful_download: s.lastSuccessfulDownload?.toISOString() ?? null,
    last_error: s.lastError
      ? {
          code: s.lastError.code,
          message: s.lastError.message,
          http_status: s.lastError.httpStatus ?? null,
          at: s.lastError.at.toISOString(),
        }
      : null,
    rejections: s.rejections,
  }
}

/** The relay's own report in OPA's status shape (UpdateRequestV1). */
export function relayStatusReport(sources: RelayStatusSources): Record<string, unknown> {
  const { identity, cache } = sources
  const bundles: Record<string, unknown> = {}
  let discovery: Record<string, unknown> | undefined
  for (const s of cache.all()) {
    const entry = opaBundleStatus(s)
    if (s.target.kind === 'discovery') discovery = entry
    else bundles[s.target.name] = entry
  }
  const report: Record<string, unknown> = {
    labels: { ...identity.labels, id: identity.id, version: identity.version, type: 'regent-relay' },
    bundles,
    plugins: {
      bundle: { state: cache.all().every((s) => s.served !== undefined) ? 'OK' : 'NOT_READY' },
    },
  }
  if (discovery) report.discovery = discovery
  // NOTE(C1): not an OPA field. The ids of the agents whose reports this relay forwards, so the
  // control plane can show them behind their relay (docs/console.md, Fleet). Ids only: the list
  // changes when an agent appears or expires, not on every report, so the coalescing forwarder
  // still posts the relay's own report only when something changed.
  report.relay_agents = sources.agents
    .all()
    .map((a) => a.agentId)
    .sort()
  return report
}

function opaBundleStatus(s: TargetState): Record<string, unknown> {
  const entry: Record<string, unknown> = { name: s.target.name, type: 'snapshot' }
  if (s.served) {
    entry.active_revision = s.served.revision
    entry.last_successful_activation = s.served.verifiedAt.toISOString()
    entry.size = s.served.bytes.byteLength
  }
  if (s.lastRequest) entry.last_request = s.lastRequest.toISOString()
  if (s.lastSuccessfulRequest) entry.last_successful_request = s.lastSuccessfulRequest.toISOString()
  if (s.lastSuccessfulDownload) entry.last_successful_download = s.lastSuccessfulDownload.toISOString()
  if (s.lastError) {
    entry.code = s.lastError.code
    entry.message = s.lastError.message
    if (s.lastError.httpStatus !== undefined) entry.http_code = String(s.lastError.httpStatus)
  }
  return entry
}
