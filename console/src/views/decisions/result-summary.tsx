/** A decision's result in a few characters, and its kind as a badge. */
import type { DecisionItem } from '../../api/decisions'

const KIND_CLASS: Record<string, string> = { ALLOWED: 'good', DENIED: 'bad', ERROR: 'warn' }

export function KindBadge({ kind }: { kind: string }) {
  return <span class={`badge ${KIND_CLASS[kind] ?? ''}`}>{kind.toLowerCase()}</span>
}

/** The result as short JSON text (undefined results and trimmed ones said as such). */
export function resultText(decision: DecisionItem, max = 80): string {
  if (decision.filtered_fields?.includes('result')) return '(large result)'
  if (!('result' in decision) || decision.result === undefined)
    return decision.error ? '(error)' : '(undefined)'
  const text = JSON.stringify(decision.result)
  return text.length > max ? `${text.slice(0, max - 1)}…` : text
}

/** Who made the decision: the agent's id label, else the requester. */
export function agentOf(decision: DecisionItem): string | undefined {
  return decision.labels?.id ?? decision.requested_by
}
