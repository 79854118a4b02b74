/**
 * Tracing (`--explain`): the evaluator reports entering, succeeding, failing and redoing each
 * expression to a tracer, which records OPA-style events for `regent eval --explain` and
 * `regent test -v`.
 */
import { bodyString, exprString } from '../compiler/text.js'
import type { Location } from '../syntax/ast.js'
import type { Frame } from './bindings.js'
import type { Evaluator, Iter } from './evaluator.js'
import type { PExpr } from './ir.js'

/** OPA's trace operations. */
export type TraceOp = 'Enter' | 'Exit' | 'Eval' | 'Fail' | 'Redo' | 'Note'

/** One trace event. */
export interface TraceEvent {
  op: TraceOp
  text: string
  location: Location | undefined
  depth: number
}

/** Receives evaluation events. */
export interface Tracer {
  /** Wraps the evaluation of one expression (`run` evaluates it with the given continuation). */
  expr(e: Evaluator, expr: PExpr, frame: Frame, iter: Iter, run: (iter: Iter) => boolean): boolean
  /** A `trace(note)` call or a custom note. */
  note(message: string, location?: Location): void
}

/** A tracer that keeps every event in memory (the `--explain full` trace). */
export class BufferTracer implements Tracer {
  readonly events: TraceEvent[] = []
  #depth = 0

  expr(_e: Evaluator, expr: PExpr, _frame: Frame, iter: Iter, run: (iter: Iter) => boolean): boolean {
    const text = exprString(expr.src)
    const location = expr.src.location
    this.events.push({ op: 'Eval', text, location, depth: this.#depth })
    let defined = false
    this.#depth++
    const stop = run(() => {
      defined = true
      this.#depth--
      const r = iter()
      this.#depth++
      this.events.push({ op: 'Redo', text, location, depth: this.#depth - 1 })
      return r
    })
    this.#depth--
    if (!defined) this.events.push({ op: 'Fail', text, location, depth: this.#depth })
    return stop
  }

  note(message: string, location?: Location): void {
    this.events.push({ op: 'Note', text: message, location, depth: this.#depth })
  }
}

/** Renders events as OPA's pretty trace (`| Eval x = 1`). */
export function prettyTrace(events: readonly TraceEvent[], ops?: ReadonlySet<TraceOp>): string {
  const lines: string[] = []
  for (const ev of events) {
    if (ops && !ops.has(ev.op)) continue
    const loc = ev.location ? `${ev.location.file || 'query'}:${ev.location.row}` : ''
    lines.push(`${loc.padEnd(20)} ${'| '.repeat(ev.depth + 1)}${ev.op} ${ev.text}`)
  }
  return lines.join('\n')
}

export { bodyString }
