/**
 * `#/decisions/<decision id>?system=<id>`: one decision: what was asked (path, input), what was
 * answered (result, error), with which bundles, labels, metrics and `nd_builtin_cache`, and a
 * "Replay against…" panel for those the service lets replay (decisions.replay).
 */
import type { ComponentChildren } from 'preact'
import type { ApiClient } from '../../api/client'
import { type DecisionItem, getDecision } from '../../api/decisions'
import { useAllowed } from '../../auth/permissions'
import { href } from '../../router'
import { CopyButton } from '../../ui/copy-button'
import { indentJsonText } from '../../ui/json-text'
import { JsonView } from '../../ui/json-view'
import { ErrorBox, Loading } from '../../ui/status-message'
import { TimeAgo } from '../../ui/time'
import { useApi } from '../../ui/use-api'
import { ReplayPanel } from './replay-panel'
import { agentOf, KindBadge } from './result-summary'

interface Props {
  api: ApiClient
  id: string
  system: string | undefined
}

export function DecisionDetail({ api, id, system }: Props) {
  const decision = useApi((signal) => getDecision(api, id, system, signal), [api, id, system])
  const d = decision.data
  return (
    <section aria-labelledby="decision-title" class="decision-detail">
      <p>
        <a href={href('decisions')}>← Decisions</a>
      </p>
      <div class="row title-row">
        <h1 id="decision-title">
          Decision <code>{id}</code>
        </h1>
        <CopyButton text={id} label="Copy id" />
      </div>
      {decision.error && <ErrorBox error={decision.error} />}
      {decision.loading && !d && <Loading what="the decision" />}
      {d && <DecisionBody api={api} d={d} />}
    </section>
  )
}

function DecisionBody({ api, d }: { api: ApiClient; d: DecisionItem }) {
  const mayReplay = useAllowed(api, { operation: 'POST', path: '/v1/logreplay' })
  const bundles = Object.entries(d.bundles ?? {})
  const labels = Object.entries(d.labels ?? {})
  const metrics = Object.entries(d.metrics ?? {})
  return (
    <>
      <dl class="facts">
        <Fact term="Result">
          <KindBadge kind={d.result_kind} />
        </Fact>
        <Fact term="Decided">
          {d.timestamp ? <TimeAgo at={d.timestamp} /> : <span class="muted">no timestamp</span>}{' '}
          <span class="muted">{d.timestamp}</span>
        </Fact>
        <Fact term="Received">{d.received}</Fact>
        <Fact term="System">
          {d.system_id ? <code>{d.system_id}</code> : <span class="muted">none</span>}
        </Fact>
        <Fact term={d.path !== undefined ? 'Path' : 'Query'}>
          <code>{d.path ?? d.query ?? ''}</code>
        </Fact>
        <Fact term="Agent">{agentOf(d) ?? <span class="muted">unknown</span>}</Fact>
        {d.revision && <Fact term="Revision">{d.revision}</Fact>}
      </dl>

      <h2 id="decision-input">Input</h2>
      <JsonView value={d.input} label="Input" />
      <h2>Result</h2>
      <JsonView value={d.result} label="Result" />
      {d.error !== undefined && (
        <>
          <h2>Error</h2>
          <JsonView value={d.error} label="Error" />
        </>
      )}

      <h2>Bundles</h2>
      {bundles.length === 0 ? (
        <p class="muted">No bundle revisions logged.</p>
      ) : (
        <KeyTable
          caption="Bundle revisions"
          head={['Bundle', 'Revision']}
          rows={bundles.map(([k, v]) => [k, v.revision ?? ''])}
        />
      )}
      <h2>Labels</h2>
      {labels.length === 0 ? (
        <p class="muted">No labels.</p>
      ) : (
        <KeyTable caption="Labels" head={['Label', 'Value']} rows={labels.map(([k, v]) => [k, String(v)])} />
      )}
      <h2>Metrics</h2>
      {metrics.length === 0 ? (
        <p class="muted">No metrics logged.</p>
      ) : (
        <KeyTable
          caption="Metrics"
          head={['Metric', 'Value']}
          rows={metrics.map(([k, v]) => [k, JSON.stringify(v)])}
        />
      )}
      <h2>Non-deterministic built-ins</h2>
      {d.nd_builtin_cache === undefined ? (
        <p class="muted">No nd_builtin_cache logged.</p>
      ) : (
        <JsonView value={d.nd_builtin_cache} label="nd_builtin_cache" />
      )}

      {d.Decision !== undefined && (
        <details class="raw-event">
          <summary>The event as stored (numbers exactly as sent)</summary>
          {/* biome-ignore lint/a11y/noNoninteractiveTabindex: a scrollable region must be reachable by keyboard (WCAG 2.1.1). */}
          <section class="json" aria-label="Event as stored" tabIndex={0}>
            <pre>{indentJsonText(d.Decision)}</pre>
          </section>
        </details>
      )}

      {mayReplay && d.system_id && d.path !== undefined && (
        <ReplayPanel api={api} decision={d} system={d.system_id} />
      )}
      {mayReplay && d.system_id && d.path === undefined && (
        <p class="muted">This decision answered an ad-hoc query (no path): it cannot be replayed.</p>
      )}
    </>
  )
}

function Fact({ term, children }: { term: string; children: ComponentChildren }) {
  return (
    <div>
      <dt>{term}</dt>
      <dd>{children}</dd>
    </div>
  )
}

function KeyTable({
  caption,
  head,
  rows,
}: {
  caption: string
  head: [string, string]
  rows: Array<[string, string]>
}) {
  return (
    <div class="table-wrap">
      <table class="keys">
        <caption class="visually-hidden">{caption}</caption>
        <thead>
          <tr>
            <th scope="col">{head[0]}</th>
            <th scope="col">{head[1]}</th>
          </tr>
        </thead>
        <tbody>
          {rows.map(([k, v]) => (
            <tr key={k}>
              <th scope="row">
                <code>{k}</code>
              </th>
              <td>
                <code>{v}</code>
              </td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
