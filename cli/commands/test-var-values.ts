/**
 * `regent test --var-values`: under FAILURES, each failed test's failing expression as OPA's
 * `topdown.PrettyEvent` draws it: the expression's text, then one column of `|` per variable
 * (at the column where the variable's text starts) and, line by line from the right, each
 * variable's value. Variables on one column are told apart by their text (`y[2] + z: 6`). When
 * the expression spans lines holding tabs, columns cannot be drawn reliably and the values are
 * listed under `Where:` instead (as OPA does).
 */

import type { TraceEvent } from '../../core/rego/eval/trace.js'
import type { FailedExpr, FailedExprVar } from '../../core/rego/eval/trace-failure.js'
import type { Location } from '../../core/rego/syntax/ast.js'
import { locationText } from '../../core/rego/syntax/source.js'
import { formatValue } from '../../core/rego/values/format.js'

// OPA cuts a value in the diagram to 64 characters, the last three `...`.
const MAX_VALUE_WIDTH = 64

/** The failure OPA's reporter shows: the last failed expression of a test rule (not the query). */
export function lastFailure(events: readonly TraceEvent[]): FailedExpr | undefined {
  for (let i = events.length - 1; i >= 0; i--) {
    const ev = events[i] as TraceEvent
    if (ev.op === 'Fail' && ev.failure && ev.location && ev.location.file !== '') return ev.failure
  }
  return undefined
}

/** The lines of the diagram (`x == y`, then the arrows and values), unindented. */
export function failureDiagram(failure: FailedExpr): string[] {
  const text = `${padding(failure.location, 1, failure.location.col)}${locationText(failure.location) ?? ''}`
  const lines = text.split('\n')
  const vars = failure.vars
  if (vars.length === 0) return lines
  const rows = new Set(vars.map((v) => v.location.row))
  if (rows.size > 1 && vars.some((v) => padding(v.location, 1, v.location.col).includes('\t'))) {
    const byTitle = [...vars].sort((a, b) => (a.title < b.title ? -1 : a.title > b.title ? 1 : 0))
    return [...lines, '', 'Where:', '', ...byTitle.map((v) => `${v.title}: ${valueText(v)}`)]
  }
  const byCol = [...vars].sort(
    (a, b) =>
      a.location.col - b.location.col ||
      b.location.row - a.location.row ||
      (a.title < b.title ? -1 : a.title > b.title ? 1 : 0),
  )
  lines.push(arrows(byCol, -1))
  for (let i = byCol.length - 1; i >= 0; i--) lines.push(arrows(byCol, i))
  return lines
}

// One line of the diagram: `|` for each variable up to `valueAt`, whose value ends the line (all
// `|` when `valueAt` is -1). Variables sharing a column draw one `|`.
function arrows(all: FailedExprVar[], valueAt: number): string {
  const shown = valueAt >= 0 ? all.slice(0, valueAt + 1) : all
  let out = ''
  let prevCol = 0
  for (const [i, v] of shown.entries()) {
    const last = i === shown.length - 1
    const col = v.location.col
    if (!last && col === all[i + 1]?.location.col) continue
    out += padding(v.location, prevCol + 1, col)
    if (last && valueAt >= 0) {
      const shared = (i > 0 && col === all[i - 1]?.location.col) || col === all[i + 1]?.location.col
      out += shared ? `${v.title}: ${valueText(v)}` : valueText(v)
    } else {
      out += '|'
    }
    prevCol = col
  }
  return out
}

// The blanks from column `from` up to (not including) column `to` of the location's line: a tab
// where the line has one, so that columns line up under tab-indented source, else a space.
function padding(location: Location, from: number, to: number): string {
  const line = lineBefore(location)
  let out = ''
  for (let c = from; c < to; c++) out += line[c - 1] === '\t' ? '\t' : ' '
  return out
}

// The text of the location's line before it.
function lineBefore(location: Location): string {
  const text = location.source?.text
  if (text === undefined) return ''
  return text.slice(location.offset - (location.col - 1), location.offset)
}

function valueText(v: FailedExprVar): string {
  if (v.value === undefined) return 'undefined'
  const text = formatValue(v.value)
  return text.length > MAX_VALUE_WIDTH ? `${text.slice(0, MAX_VALUE_WIDTH - 3)}...` : text
}
