/** One activity record: when, who, what was asked, how it ended, and a link to what it changed. */
import type { ActivityRecord } from '../../api/activity'
import { href } from '../../router'
import { JsonView } from '../../ui/json-view'
import { TimeAgo } from '../../ui/time'
import { VIEWS } from '../index'
import { targetsOf } from './activity-links'

export function ActivityRow({ record }: { record: ActivityRecord }) {
  const { request, response, decision } = record
  const status = response?.status_code ?? 0
  const denied = status === 401 || status === 403 || decision?.output?.allow === false
  const failed = !denied && status >= 400
  const targets = targetsOf(request.path)
  const target = targets[0]
  // Only views the console has (the registry decides); others stay plain text.
  const linked = targets.find((t) => VIEWS.some((v) => v.id === t.view))
  const reason =
    request.errors?.evaluation ?? decision?.output?.status?.reason ?? response?.errors?.processing
  return (
    <tr data-request={request.id}>
      <td data-label="When">
        <TimeAgo at={request.timestamp} />
      </td>
      <td data-label="Who">
        {request.requested_by || <span class="muted">anonymous</span>}
        <div class="muted small">{request.requested_through}</div>
      </td>
      <td data-label="Request" class="request-cell">
        <code>
          {request.method} {request.path}
        </code>
        {request.request_body !== undefined && (
          <details>
            <summary>Body</summary>
            <JsonView value={request.request_body} label={`body of request ${request.id}`} />
          </details>
        )}
      </td>
      <td data-label="Outcome">
        <span class={`badge ${denied || failed ? 'bad' : 'good'}`}>{status || '?'}</span>{' '}
        <span class="muted">{request.class}</span>
        {decision?.output?.grant?.role && <div class="muted small">as {decision.output.grant.role}</div>}
        {reason && <div class="small">{reason}</div>}
      </td>
      <td data-label="Changed">
        {linked ? (
          <a href={href(linked.view, ...linked.segments)}>{linked.label}</a>
        ) : target ? (
          <span>{target.label}</span>
        ) : (
          <span class="muted">—</span>
        )}
      </td>
    </tr>
  )
}
