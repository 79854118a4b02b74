/**
 * print and trace. The compiler rewrites `print(a, b)` into `internal.print([{a...}, {b...}])`:
 * each argument becomes the set of its values, so an undefined argument prints `<undefined>` and a
 * multi-valued one prints one line per combination. Built-ins without a result return `true`.
 */
import { t } from '../types/index.js'
import type { Value } from '../values/index.js'
import { formatValue, isSet } from '../values/index.js'
import { defineBuiltin } from './define.js'
import { BuiltinError } from './errors.js'
import { arrayOperand, stringOperand } from './operands.js'

/** How print shows a value: strings raw, everything else in Rego syntax. */
function show(v: Value): string {
  return typeof v === 'string' ? v : formatValue(v)
}

/** The lines `internal.print` writes for its argument sets (their cross product). */
export function printLines(sets: readonly Value[]): string[] {
  const lines: string[] = []
  const parts: string[] = []
  const step = (i: number) => {
    if (i === sets.length) {
      lines.push(parts.join(' '))
      return
    }
    const s = sets[i] as Value
    if (!isSet(s))
      throw new BuiltinError(`illegal argument type: ${typeof s === 'string' ? 'string' : 'non-set'}`)
    if (s.size === 0) {
      parts[i] = '<undefined>'
      step(i + 1)
      return
    }
    for (const v of s.values()) {
      parts[i] = show(v)
      step(i + 1)
    }
  }
  step(0)
  return lines
}

export const print = defineBuiltin({
  name: 'print',
  category: 'tracing',
  description:
    '`print` is used to output the values of variables for debugging purposes. `print` calls do not affect the result of queries or rules. All variables passed to `print` must be assigned inside of the query or rule. If any of the `print` arguments are undefined, their values are represented as `<undefined>` in the output stream. Because policies can be invoked via different interfaces (e.g., CLI, HTTP API, etc.) the exact output format differs. See the table below for details on the output format per interface.',
  args: [],
  variadic: t.any,
  impl: (ctx, args, location) => {
    ctx.print(args.map(show).join(' '), location)
    return true
  },
})

export const internalPrint = defineBuiltin({
  name: 'internal.print',
  category: 'tracing',
  description: 'Prints the cross product of its argument value sets (what `print(...)` compiles to).',
  args: [t.named('values', t.array(t.set(t.any)), 'one set of values per print argument')],
  impl: (ctx, [xs], location) => {
    for (const line of printLines(arrayOperand(xs, 1))) ctx.print(line, location)
    return true
  },
})

export const trace = defineBuiltin({
  name: 'trace',
  category: 'tracing',
  description:
    'Emits `note` as a `Note` event in the query explanation. Query explanations show the exact expressions evaluated by OPA during policy execution. For example, `trace("Hello There!")` includes `Note "Hello There!"` in the query explanation. To include variables in the message, use `sprintf`. For example, `person := "Bob"; trace(sprintf("Hello There! %v", [person]))` will emit `Note "Hello There! Bob"` inside of the explanation.',
  args: [t.named('note', t.string, 'the note to include')],
  result: t.named('result', t.boolean, 'always `true`'),
  impl: (ctx, [note], location) => {
    ctx.trace?.(stringOperand(note, 1), location)
    return true
  },
})

/** The tracing built-ins. */
export const TRACING = [print, internalPrint, trace] as const
