/**
 * One system: what it is and whether its bundle built (with why not), its policies with their
 * source highlighted, its data and datasources, its bundle history and registry uploads, and
 * the configs an agent or a relay starts with.
 */
import { idPath } from '../../api/client'
import type { System } from '../../api/systems'
import { href } from '../../router'
import { TimeAgo } from '../../ui/time'
import { useApi } from '../../ui/use-api'
import type { ViewProps } from '../index'
import { LoadedSection } from './loaded'
import { SystemStatus } from './status-badge'
import { SystemBundles } from './system-bundles'
import { SystemConfigs } from './system-configs'
import { SystemData } from './system-data'
import { SystemPolicies } from './system-policies'
import './systems.css'

export function SystemDetail({ api, id }: ViewProps & { id: string }) {
  const system = useApi(
    (signal) => api.get<System>(`/v1/systems/${idPath(id)}`, undefined, signal),
    [api, id],
  )
  return (
    <section aria-labelledby="system-title" class="system-detail">
      <p>
        <a href={href('systems')}>← Systems</a>
      </p>
      <h1 id="system-title">{system.data?.name ?? id}</h1>
      <LoadedSection loaded={system} what="this system">
        {(s) => (
          <>
            <Facts system={s} />
            <SystemPolicies api={api} system={s} />
            <SystemData api={api} system={s} />
            <SystemBundles api={api} system={s} />
            <SystemConfigs api={api} system={s} />
          </>
        )}
      </LoadedSection>
    </section>
  )
}

function Facts({ system }: { system: System }) {
  const git = system.source_control_status
  return (
    <dl class="system-facts">
      <dt>Id</dt>
      <dd>
        <code>{system.id}</code>
      </dd>
      <dt>Type</dt>
      <dd>{system.type}</dd>
      <dt>Status</dt>
      <dd>
        <SystemStatus system={system} />
      </dd>
      {system.description && (
        <>
          <dt>Description</dt>
          <dd>{system.description}</dd>
        </>
      )}
      {git && (
        <>
          <dt>Git</dt>
          <dd>
            {git.commit ? <code title={git.commit}>{git.commit.slice(0, 12)}</code> : 'not synced yet'}
            {git.ref && <span class="muted"> {git.ref}</span>}
            {git.synced_at && (
              <span class="muted">
                {' '}
                synced <TimeAgo at={git.synced_at} />
              </span>
            )}
            {git.error && (
              <div class="error">
                {git.error.code}: {git.error.message}
              </div>
            )}
          </dd>
        </>
      )}
      <dt>Fleet</dt>
      <dd>
        <a href={`${href('fleet')}?systems=${encodeURIComponent(system.id)}`}>This system's agents</a>
      </dd>
      {system.metadata?.last_modified_at && (
        <>
          <dt>Changed</dt>
          <dd>
            <TimeAgo at={system.metadata.last_modified_at} /> by {system.metadata.last_modified_by ?? '?'}
          </dd>
        </>
      )}
    </dl>
  )
}
