/** The cells of one agent's row: its badges, bundles (revision and git commit), plugins, errors. */
import type { FleetAgent } from '../../api/fleet'
import { formatAge } from '../../ui/time'
import type { AgentRow } from './fleet-order'
import { shortRevision } from './fleet-order'

export function HealthBadges({ row }: { row: AgentRow }) {
  return (
    <span class="badges">
      {row.stale && <span class="badge bad">stale</span>}
      {row.erroring && <span class="badge bad">error</span>}
      {row.notReady && <span class="badge warn">not ready</span>}
      {!row.stale && !row.erroring && !row.notReady && <span class="badge good">ok</span>}
    </span>
  )
}

export function AgentName({ row }: { row: AgentRow }) {
  const { agent } = row
  return (
    <span class={row.behindRelay ? 'behind-relay' : undefined}>
      {row.behindRelay && (
        <span class="muted" title={`reports through relay ${agent.via_relay}`}>
          ↳{' '}
        </span>
      )}
      <code>{agent.agent_id}</code>
      {agent.kind === 'relay' && (
        <span>
          {' '}
          <span class="badge">relay</span>
          <span class="muted"> {agent.relay_agents?.length ?? 0} agents</span>
        </span>
      )}
      {agent.version && <span class="muted"> v{agent.version}</span>}
    </span>
  )
}

export function LastReport({ row, agent }: { row: AgentRow; agent: FleetAgent }) {
  return (
    <time dateTime={agent.received_at} title={agent.received_at}>
      {formatAge(row.ageMs)} ago
    </time>
  )
}

export function Bundles({ agent }: { agent: FleetAgent }) {
  if (agent.bundles.length === 0) return <span class="muted">none</span>
  return (
    <ul class="plain">
      {agent.bundles.map((b) => (
        <li key={b.name}>
          {/* The system's own bundle is named after it: say so instead of repeating its id. */}
          <span class="muted">{b.name === `systems/${agent.system_id}` ? 'system bundle' : b.name}: </span>
          {b.revision ? (
            <code title={b.revision}>{shortRevision(b.revision)}</code>
          ) : (
            <span class="muted">no revision</span>
          )}
          {b.commit && (
            <span>
              {' '}
              commit <code title={b.commit}>{b.commit.slice(0, 12)}</code>
            </span>
          )}
        </li>
      ))}
    </ul>
  )
}

export function Plugins({ agent }: { agent: FleetAgent }) {
  const entries = Object.entries(agent.plugins)
  if (entries.length === 0) return <span class="muted">none</span>
  return (
    <ul class="plain inline">
      {entries.map(([name, p]) => (
        <li key={name}>
          {name}:{' '}
          <span class={`badge ${p.state === 'OK' ? 'good' : p.state === 'ERROR' ? 'bad' : 'warn'}`}>
            {p.state}
          </span>
        </li>
      ))}
    </ul>
  )
}

export function Errors({ agent }: { agent: FleetAgent }) {
  if (agent.errors.length === 0) return <span class="muted">none</span>
  return (
    <ul class="plain errors-list">
      {agent.errors.map((e) => (
        <li key={e}>{e.replace(`bundle systems/${agent.system_id}:`, 'system bundle:')}</li>
      ))}
    </ul>
  )
}
