/**
 * Fleet: every agent that reported status, grouped by system, stale and erroring agents first,
 * relays followed by the agents behind them. Refreshed every 15 s; ages tick every 5 s from the
 * service's clock, so a browser whose clock is off still shows the right ages.
 */
import { useCallback, useEffect, useState } from 'preact/hooks'
import { href, replaceParams } from '../../router'
import { ScrollTable } from '../../ui/scroll-table'
import { Empty, ErrorBox, Loading } from '../../ui/status-message'
import { formatAge } from '../../ui/time'
import { useApi, useInterval } from '../../ui/use-api'
import type { ViewProps } from '../index'
import { AgentName, Bundles, Errors, HealthBadges, LastReport, Plugins } from './agent-cells'
import {
  DEFAULT_STALE_SECONDS,
  groupFleet,
  onlyFlagged,
  parseThreshold,
  type SystemGroup,
} from './fleet-order'
import { loadFleet } from './load-fleet'
import './fleet.css'

const REFRESH_MS = 15_000
const TICK_MS = 5_000

export function FleetView({ api, params }: ViewProps) {
  const onlyText = params.get('systems') ?? ''
  const only = onlyText
    .split(',')
    .map((s) => s.trim())
    .filter(Boolean)
  const fleet = useApi(
    (signal) => loadFleet(api, signal, only.length > 0 ? only : undefined),
    [api, onlyText],
  )
  const [tick, setTick] = useState(Date.now())
  const staleSeconds = parseThreshold(params.get('stale')) ?? DEFAULT_STALE_SECONDS
  const [draft, setDraft] = useState(params.get('stale') ?? '')
  const [onlyDraft, setOnlyDraft] = useState(onlyText)
  useEffect(() => {
    setDraft(params.get('stale') ?? '')
    setOnlyDraft(params.get('systems') ?? '')
  }, [params])
  useInterval(fleet.reload, REFRESH_MS)
  useInterval(
    useCallback(() => setTick(Date.now()), []),
    TICK_MS,
  )

  const applyThreshold = (e: Event) => {
    e.preventDefault()
    const next = new URLSearchParams(params)
    if (draft.trim() === '') next.delete('stale')
    else next.set('stale', draft.trim())
    if (onlyDraft.trim() === '') next.delete('systems')
    else next.set('systems', onlyDraft.trim())
    replaceParams(next)
  }
  const draftInvalid = draft.trim() !== '' && parseThreshold(draft) === undefined

  const data = fleet.data
  const nowMs = data ? Date.parse(data.fleet.now) + Math.max(0, tick - data.receivedAtMs) : 0
  const groups = data ? groupFleet(data.fleet.agents, nowMs, staleSeconds * 1000) : []
  const total = data?.fleet.agents.length ?? 0
  const stale = groups.reduce((n, g) => n + g.stale, 0)
  const erroring = groups.reduce((n, g) => n + g.erroring, 0)
  const flaggedOnly = params.get('flagged') === '1'
  const shown = flaggedOnly ? onlyFlagged(groups) : groups

  return (
    <section aria-labelledby="fleet-title" class="fleet">
      <h1 id="fleet-title">Fleet</h1>
      <form class="row fleet-tools" onSubmit={applyThreshold}>
        <div>
          <label for="stale-threshold">Stale after (seconds, or 5m, 2h)</label>
          <input
            id="stale-threshold"
            value={draft}
            placeholder={`${DEFAULT_STALE_SECONDS}`}
            aria-invalid={draftInvalid}
            aria-describedby="stale-help"
            onInput={(e) => setDraft(e.currentTarget.value)}
          />
        </div>
        <div>
          <label for="only-systems">Only systems (ids, comma-separated)</label>
          <input
            id="only-systems"
            value={onlyDraft}
            placeholder="all"
            onInput={(e) => setOnlyDraft(e.currentTarget.value)}
          />
        </div>
        <button type="submit" class="secondary" disabled={draftInvalid}>
          Apply
        </button>
        <button type="button" class="secondary" onClick={fleet.reload}>
          Refresh
        </button>
        <p id="stale-help" class="muted">
          An agent is stale when no status report reached the service for {formatAge(staleSeconds * 1000)}.
        </p>
      </form>
      {fleet.error && <ErrorBox error={fleet.error} />}
      {fleet.loading && !data && <Loading what="the fleet" />}
      {data && (
        <p class="summary" aria-live="polite">
          {total} agents in {groups.length} systems
          {stale > 0 && <span class="badge bad">{stale} stale</span>}
          {erroring > 0 && <span class="badge bad">{erroring} erroring</span>}
        </p>
      )}
      {data && total > 0 && (
        <p>
          <label class="inline">
            <input
              type="checkbox"
              checked={flaggedOnly}
              onChange={(e) => {
                const next = new URLSearchParams(params)
                if (e.currentTarget.checked) next.set('flagged', '1')
                else next.delete('flagged')
                replaceParams(next)
              }}
            />{' '}
            Only stale or erroring agents
          </label>
        </p>
      )}
      {data && total === 0 && <Empty>No agent has reported status yet (or none you may read).</Empty>}
      {data && flaggedOnly && shown.length === 0 && total > 0 && (
        <Empty>No agent is stale or erroring.</Empty>
      )}
      {shown.map((g) => (
        <SystemFleet
          key={g.systemId ?? ''}
          group={g}
          name={g.systemId ? data?.names.get(g.systemId) : undefined}
        />
      ))}
    </section>
  )
}

function SystemFleet({ group, name }: { group: SystemGroup; name: string | undefined }) {
  const id = group.systemId
  const titleId = `fleet-${id ?? 'none'}`
  return (
    <section class="fleet-system" aria-labelledby={titleId}>
      <h2 id={titleId}>
        {id ? <a href={href('systems', id)}>{name ?? id}</a> : 'No system'}{' '}
        <span class="muted">({group.rows.length})</span>
        {group.stale > 0 && <span class="badge bad">{group.stale} stale</span>}
        {group.erroring > 0 && <span class="badge bad">{group.erroring} erroring</span>}
      </h2>
      <ScrollTable label={`agents of ${name ?? id ?? 'no system'}`}>
        <table class="fleet-table cards">
          <thead>
            <tr>
              <th scope="col">Agent</th>
              <th scope="col">Health</th>
              <th scope="col">Last report</th>
              <th scope="col">Bundles</th>
              <th scope="col">Plugins</th>
              <th scope="col">Errors</th>
            </tr>
          </thead>
          <tbody>
            {group.rows.map((row) => (
              <tr
                key={row.agent.agent_id}
                data-agent={row.agent.agent_id}
                class={row.stale || row.erroring ? 'attention' : undefined}
              >
                <th scope="row">
                  <AgentName row={row} />
                </th>
                <td data-label="Health">
                  <HealthBadges row={row} />
                </td>
                <td data-label="Last report">
                  <LastReport row={row} agent={row.agent} />
                </td>
                <td data-label="Bundles">
                  <Bundles agent={row.agent} />
                </td>
                <td data-label="Plugins">
                  <Plugins agent={row.agent} />
                </td>
                <td data-label="Errors">
                  <Errors agent={row.agent} />
                </td>
              </tr>
            ))}
          </tbody>
        </table>
      </ScrollTable>
    </section>
  )
}
