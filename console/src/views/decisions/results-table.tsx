/** The decisions found: time, system, path, result and agent; each links to its detail. */
import type { DecisionItem } from '../../api/decisions'
import { href } from '../../router'
import { TimeAgo } from '../../ui/time'
import { agentOf, KindBadge, resultText } from './result-summary'

interface Props {
  items: DecisionItem[]
  now: number
  /** Decisions that arrived through the live tail since the search (highlighted). */
  fresh: ReadonlySet<string>
}

export function detailHref(d: DecisionItem): string {
  const base = href('decisions', d.decision_id)
  return d.system_id ? `${base}?system=${encodeURIComponent(d.system_id)}` : base
}

export function ResultsTable({ items, now, fresh }: Props) {
  return (
    <div class="table-wrap">
      <table class="decisions">
        <caption class="visually-hidden">Decisions, newest first</caption>
        <thead>
          <tr>
            <th scope="col">Time</th>
            <th scope="col" class="col-system">
              System
            </th>
            <th scope="col">Path</th>
            <th scope="col">Result</th>
            <th scope="col">Agent</th>
          </tr>
        </thead>
        <tbody>
          {items.map((d) => (
            <tr key={d.cursor} class={fresh.has(d.cursor) ? 'fresh' : undefined}>
              <td>
                <a href={detailHref(d)}>
                  <TimeAgo at={d.timestamp ?? d.received} now={now} />
                  <span class="visually-hidden"> decision {d.decision_id}</span>
                </a>
              </td>
              <td class="col-system">{d.system_id ?? <span class="muted">none</span>}</td>
              <td>
                <code>{d.path ?? d.query ?? ''}</code>
              </td>
              <td>
                <KindBadge kind={d.result_kind} /> <code class="result">{resultText(d)}</code>
              </td>
              <td>{agentOf(d) ?? <span class="muted">unknown</span>}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  )
}
