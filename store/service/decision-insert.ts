/**
 * The multi-row INSERT both decision appenders run (decision-appender.ts on SQLite,
 * postgres-decision-appender.ts): its text and its parameters, seven per row.
 */
import type { NewDecision } from './decisions.js'

/** Rows per INSERT: 7 parameters each, below SQLite's 32,766 and PostgreSQL's 65,535. */
export const INSERT_CHUNK_ROWS = 500

/** `INSERT … VALUES` of `rows` rows, skipping known decision ids; `?` or `$n` placeholders. */
export function decisionInsertText(rows: number, placeholders: 'question' | 'dollar'): string {
  let n = 0
  const p = placeholders === 'dollar' ? () => `$${++n}` : () => '?'
  const values: string[] = []
  for (let r = 0; r < rows; r++) values.push(`(${p()}, ${p()}, ${p()}, ${p()}, ${p()}, ${p()}, ${p()})`)
  return `INSERT INTO decisions (decision_id, system_id, path, result_kind, ts_us, received_us, raw) VALUES ${values.join(', ')} ON CONFLICT DO NOTHING`
}

/** Writes the parameters of `rows[from, from + size)` into `out` (resized to fit) and returns it. */
export function decisionParams(
  rows: NewDecision[],
  from: number,
  size: number,
  out: unknown[] = [],
): unknown[] {
  out.length = size * 7
  for (let k = 0, at = 0; k < size; k++) {
    const d = rows[from + k] as NewDecision
    out[at++] = d.decisionId
    out[at++] = d.systemId
    out[at++] = d.path
    out[at++] = d.resultKind
    out[at++] = d.tsUs
    out[at++] = d.receivedUs
    out[at++] = d.raw
  }
  return out
}
