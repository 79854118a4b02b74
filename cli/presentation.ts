/**
 * Output of `regent eval` in OPA's shapes (`internal/presentation`): JSON with Go's field order
 * and HTML escaping, `values`, `bindings`, `raw` and `pretty` (a value, or a table of bindings).
 */
import type { QueryResult } from '../core/rego/eval/query.js'
import { formatValue, quoteJSON, toJSONText, type Value } from '../core/rego/values/index.js'

/** A Rego value inside a JSON document being written. */
export class Embedded {
  constructor(readonly value: Value) {}
}

/** A JSON document whose leaves may be Rego values. */
export type Doc = null | boolean | number | string | Embedded | Doc[] | { [key: string]: Doc | undefined }

/** Renders `doc` as Go's `json.Encoder` with two-space indentation would (keys in insertion order). */
export function renderJson(doc: Doc, depth = ''): string {
  if (doc === null) return 'null'
  if (doc instanceof Embedded) return toJSONText(doc.value, { indent: '  ', prefix: depth, escapeHTML: true })
  switch (typeof doc) {
    case 'boolean':
      return doc ? 'true' : 'false'
    case 'number':
      return String(doc)
    case 'string':
      return quoteJSON(doc, true)
  }
  const inner = `${depth}  `
  if (Array.isArray(doc)) {
    if (doc.length === 0) return '[]'
    return `[\n${doc.map((d) => inner + renderJson(d, inner)).join(',\n')}\n${depth}]`
  }
  const entries = Object.entries(doc).filter(([, v]) => v !== undefined) as Array<[string, Doc]>
  if (entries.length === 0) return '{}'
  return `{\n${entries.map(([k, v]) => `${inner}${quoteJSON(k, true)}: ${renderJson(v, inner)}`).join(',\n')}\n${depth}}`
}

/**
 * `doc` with every object's keys in sorted order: OPA's `discard` format round-trips its output through
 * a Go map before printing, so its members (errors, locations, profile) come out sorted, unlike `json`.
 */
export function sortedDoc(doc: Doc): Doc {
  if (doc === null || typeof doc !== 'object' || doc instanceof Embedded) return doc
  if (Array.isArray(doc)) return doc.map(sortedDoc)
  const out: { [key: string]: Doc | undefined } = {}
  for (const k of Object.keys(doc).sort()) {
    const v = doc[k]
    if (v !== undefined) out[k] = sortedDoc(v)
  }
  return out
}

/** One result in OPA's JSON shape. */
export function resultDoc(r: QueryResult): Doc {
  const out: { [key: string]: Doc | undefined } = {
    expressions: r.expressions.map((e) => ({
      value: new Embedded(e.value),
      text: e.text,
      location: e.location ? { row: e.location.row, col: e.location.col } : undefined,
    })),
  }
  if (r.bindings.size > 0) out.bindings = bindingsDoc(r)
  return out
}

function bindingsDoc(r: QueryResult): Doc {
  const b: { [key: string]: Doc } = {}
  for (const k of [...r.bindings.keys()].sort()) b[k] = new Embedded(r.bindings.get(k) as Value)
  return b
}

/** `-f values`: one JSON array of expression values per result. */
export function renderValues(results: readonly QueryResult[]): string {
  return results.map((r) => `${renderJson(r.expressions.map((e) => new Embedded(e.value)))}\n`).join('')
}

/** `-f bindings`: one JSON object of bindings per result. */
export function renderBindings(results: readonly QueryResult[]): string {
  return results.map((r) => `${renderJson(bindingsDoc(r))}\n`).join('')
}

/** `-f raw`: one line per result, expression values separated by spaces, strings unquoted. */
export function renderRaw(results: readonly QueryResult[]): string {
  return results
    .map(
      (r) =>
        `${r.expressions.map((e) => (typeof e.value === 'string' ? e.value : toJSONText(e.value))).join(' ')}\n`,
    )
    .join('')
}

/** `-f pretty`: `undefined`, a single value, or a table of bindings. */
export function renderPretty(results: readonly QueryResult[], limit = 80): string {
  if (results.length === 0) return 'undefined\n'
  const first = results[0] as QueryResult
  if (results.length === 1 && first.bindings.size === 0) {
    if (first.expressions.length === 1 || first.expressions.every((e) => typeof e.value === 'boolean')) {
      return `${renderJson(new Embedded((first.expressions[0] as { value: Value }).value))}\n`
    }
  }
  const keys = new Set<string>()
  for (const r of results) for (const k of r.bindings.keys()) keys.add(k)
  const exprKeys = first.bindings.size === 0 ? first.expressions.map((e) => e.text) : []
  const header = [...[...keys].sort(), ...exprKeys]
  const rows = results.map((r) => [
    ...[...keys].sort().map((k) => cell(r.bindings.get(k), limit)),
    ...(exprKeys.length > 0 ? r.expressions.map((e) => cell(e.value, limit)) : []),
  ])
  return table(header, rows)
}

function cell(v: Value | undefined, limit: number): string {
  if (v === undefined) return ''
  const s = formatValue(v)
  return limit > 0 && s.length > limit ? `${s.slice(0, limit)}...` : s
}

/** A bordered text table. */
export function table(header: string[], rows: string[][]): string {
  const widths = header.map((h, i) => Math.max(h.length, ...rows.map((r) => (r[i] ?? '').length)))
  const line = `+${widths.map((w) => '-'.repeat(w + 2)).join('+')}+`
  const fmt = (cells: string[]) => `|${widths.map((w, i) => ` ${(cells[i] ?? '').padEnd(w)} `).join('|')}|`
  return [line, fmt(header), line, ...rows.map(fmt), line].join('\n') + '\n'
}

/**
 * A header-less table whose cells may span lines, with a rule between rows (OPA's `tablewriter` with
 * row lines, as `eval -p -f pretty` prints residual queries and support modules). Tabs become two
 * spaces so the columns line up.
 */
export function multilineTable(rows: string[][]): string {
  const cells = rows.map((r) => r.map((c) => c.replaceAll('\t', '  ').split('\n')))
  const columns = Math.max(0, ...cells.map((r) => r.length))
  const widths = Array.from({ length: columns }, (_, i) =>
    Math.max(0, ...cells.map((r) => Math.max(0, ...(r[i] ?? ['']).map((l) => l.length)))),
  )
  const line = `+${widths.map((w) => '-'.repeat(w + 2)).join('+')}+`
  const out: string[] = [line]
  for (const row of cells) {
    const height = Math.max(1, ...row.map((c) => c.length))
    for (let l = 0; l < height; l++)
      out.push(`|${widths.map((w, i) => ` ${(row[i]?.[l] ?? '').padEnd(w)} `).join('|')}|`)
    out.push(line)
  }
  return `${out.join('\n')}\n`
}
