/**
 * `--var-values` in traces: the values of the variables an expression mentions, as OPA appends
 * them to each line of a pretty trace (`| Eval x = 1 {x: 1}`). Only variables bound at the time
 * of the event are listed: an expression that binds a variable shows it on its Redo line.
 */

import { varString } from '../compiler/text.js'
import type { Expr } from '../syntax/ast.js'
import { terms } from '../syntax/walk.js'
import { compareStrings } from '../values/compare.js'
import { formatValue } from '../values/format.js'
import { type Frame, plug, TermBinding } from './bindings.js'

// OPA cuts each value in a trace line to 32 characters, the last three `...`, so a big document
// does not swamp the trace.
const MAX_VALUE_WIDTH = 32

function truncated(text: string): string {
  return text.length > MAX_VALUE_WIDTH ? `${text.slice(0, MAX_VALUE_WIDTH - 3)}...` : text
}

/** `{name: value, ...}` (names sorted, as OPA's value map prints) for the bound variables of `expr`. */
export function exprVarValues(expr: Expr, frame: Frame, renames?: ReadonlyMap<string, string>): string {
  const names = new Set<string>()
  for (const t of terms(expr)) {
    // Named as the trace line names them: by the user's name where `renames` maps the compiler's
    // rewritten one back (`__local2__` is `y`), as OPA does.
    if (t.type === 'var') names.add(t.value)
  }
  const pairs: Array<[string, string]> = []
  for (const name of names) {
    const slot = frame.names.indexOf(name)
    if (slot < 0) continue
    const bound = frame.s[slot]
    const value = bound instanceof TermBinding ? plug(bound.term, bound.frame) : bound
    if (value !== undefined)
      pairs.push([varString(renames?.get(name) ?? name), truncated(formatValue(value))])
  }
  // Sorted by the names printed, as OPA sorts its value map's keys.
  pairs.sort(([a], [b]) => compareStrings(a, b))
  return `{${pairs.map(([k, v]) => `${k}: ${v}`).join(', ')}}`
}
