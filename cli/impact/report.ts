/**
 * The report of `regent impact record`, shaped as the reference tool's: either every row as
 * recorded (node_id, req_id, decision_id, value_a, value_b, input, path, eval_ns_a, eval_ns_b),
 * or with `--group` one row per (path, input) with its count and the primary and secondary
 * evaluation times (mean, median, min, max, sample standard deviation and variance), most
 * frequent first. `--limit N` keeps the first N rows. Formats: json (one array), csv, and pretty
 * (a box table where nanosecond columns are shown as Go durations, `_ns` renamed `_duration`).
 */
import { isLosslessNumber, stringify } from 'lossless-json'

/** One recorded row as parsed from the server's JSON lines. */
export type ImpactRecord = Record<string, unknown>

/** A report: column names in order and rows of values (undefined for an empty cell). */
export interface ImpactReport {
  columns: string[]
  rows: unknown[][]
}

const ROW_COLUMNS = [
  'node_id',
  'req_id',
  'decision_id',
  'value_a',
  'value_b',
  'input',
  'path',
  'eval_ns_a',
  'eval_ns_b',
]

const STATS = ['mean', 'median', 'min', 'max', 'stddev', 'var'] as const

/** The report of `records`, grouped or not, limited to `limit` rows when above 0. */
export function buildReport(
  records: readonly ImpactRecord[],
  options: { group: boolean; limit: number },
): ImpactReport {
  const report = options.group ? groupedReport(records) : plainReport(records)
  if (options.limit > 0) report.rows = report.rows.slice(0, options.limit)
  return report
}

function plainReport(records: readonly ImpactRecord[]): ImpactReport {
  return { columns: ROW_COLUMNS, rows: records.map((r) => ROW_COLUMNS.map((c) => r[c])) }
}

function groupedReport(records: readonly ImpactRecord[]): ImpactReport {
  const groups = new Map<string, { path: unknown; input: unknown; a: number[]; b: number[] }>()
  for (const record of records) {
    const key = `${String(record.path)}\u0000${cellText(record.input)}`
    let group = groups.get(key)
    if (!group) {
      group = { path: record.path, input: record.input, a: [], b: [] }
      groups.set(key, group)
    }
    group.a.push(Number(record.eval_ns_a))
    group.b.push(Number(record.eval_ns_b))
  }
  const columns = [
    'path',
    'input',
    'n',
    ...STATS.map((s) => `${s}_primary_ns`),
    ...STATS.map((s) => `${s}_secondary_ns`),
  ]
  // Stable sort: groups of equal count keep the order they were first seen in.
  const sorted = [...groups.values()].sort((x, y) => y.a.length - x.a.length)
  return {
    columns,
    rows: sorted.map((g) => [g.path, g.input, g.a.length, ...statistics(g.a), ...statistics(g.b)]),
  }
}

/** mean, median, min, max, sample standard deviation and variance (undefined for one sample). */
export function statistics(values: readonly number[]): Array<number | undefined> {
  const n = values.length
  const sorted = [...values].sort((a, b) => a - b)
  const mean = values.reduce((s, v) => s + v, 0) / n
  const middle = Math.floor(n / 2)
  const median = n % 2 === 1 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
  const variance = n > 1 ? values.reduce((s, v) => s + (v - mean) ** 2, 0) / (n - 1) : undefined
  return [
    mean,
    median,
    sorted[0],
    sorted[n - 1],
    variance === undefined ? undefined : Math.sqrt(variance),
    variance,
  ]
}

/** The report in `format` (json, csv or pretty), newline-terminated. */
export function renderReport(report: ImpactReport, format: 'json' | 'csv' | 'pretty'): string {
  if (format === 'json') {
    const objects = report.rows.map((row) => {
      const object: Record<string, unknown> = {}
      report.columns.forEach((column, i) => {
        if (row[i] !== undefined) object[column] = row[i]
      })
      return object
    })
    return `${stringify(objects)}\n`
  }
  if (format === 'csv') {
    const lines = [report.columns, ...report.rows.map((row) => row.map(cellText))]
    return lines
      .map((cells) => cells.map(csvField).join(','))
      .join('\n')
      .concat('\n')
  }
  return prettyTable(report)
}

/** A cell as text: strings as they are, other values as JSON, nothing for undefined. */
function cellText(value: unknown): string {
  if (value === undefined || value === null) return value === null ? 'null' : ''
  if (typeof value === 'string') return value
  if (typeof value === 'number' || isLosslessNumber(value)) return String(value)
  return stringify(value) ?? ''
}

function csvField(text: string): string {
  return /[",\n\r]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text
}

function prettyTable(report: ImpactReport): string {
  const headers = report.columns.map((c) => c.replace('_ns', '_duration'))
  const cells = report.rows.map((row) =>
    row.map((value, i) =>
      report.columns[i]!.includes('_ns') ? goDuration(Number(value ?? 0)) : cellText(value),
    ),
  )
  const widths = headers.map((h, i) => Math.max(h.length, ...cells.map((row) => row[i]!.length)))
  const rule = (left: string, mid: string, right: string) =>
    `${left}${widths.map((w) => '─'.repeat(w + 2)).join(mid)}${right}`
  const line = (texts: string[], align: (t: string, w: number) => string) =>
    `│${texts.map((t, i) => ` ${align(t, widths[i]!)} `).join('│')}│`
  const center = (t: string, w: number) => {
    const left = Math.floor((w - t.length) / 2)
    return `${' '.repeat(left)}${t}${' '.repeat(w - t.length - left)}`
  }
  const right = (t: string, w: number) => t.padStart(w)
  return [
    rule('┌', '┬', '┐'),
    line(headers, center),
    rule('├', '┼', '┤'),
    ...cells.map((row) => line(row, right)),
    rule('└', '┴', '┘'),
    '',
  ].join('\n')
}

/** Go's `time.Duration.String()` for a count of nanoseconds (fractions truncated to whole ns). */
export function goDuration(nanoseconds: number): string {
  let ns = Math.trunc(nanoseconds)
  if (ns === 0) return '0s'
  const sign = ns < 0 ? '-' : ''
  ns = Math.abs(ns)
  const fraction = (value: number, digits: number) => {
    const whole = Math.floor(value / 10 ** digits)
    const rest = (value % 10 ** digits).toString().padStart(digits, '0').replace(/0+$/, '')
    return rest === '' ? `${whole}` : `${whole}.${rest}`
  }
  if (ns < 1_000) return `${sign}${ns}ns`
  if (ns < 1_000_000) return `${sign}${fraction(ns, 3)}µs`
  if (ns < 1_000_000_000) return `${sign}${fraction(ns, 6)}ms`
  const hours = Math.floor(ns / 3_600_000_000_000)
  const minutes = Math.floor((ns % 3_600_000_000_000) / 60_000_000_000)
  const seconds = fraction(ns % 60_000_000_000, 9)
  if (hours > 0) return `${sign}${hours}h${minutes}m${seconds}s`
  if (minutes > 0) return `${sign}${minutes}m${seconds}s`
  return `${sign}${seconds}s`
}
