/**
 * Time built-ins with Go's semantics: instants are int64 nanoseconds, zones are IANA names, layouts
 * are Go layouts (or their names: RFC3339, RFC1123Z, ...). `time.now_ns` is the query's start time
 * from the context, so it is the same everywhere in one query.
 */
import { t } from '../types/index.js'
import type { Value } from '../values/index.js'
import { isArray, isNumberValue, numberFromBigInt, toBigInt } from '../values/index.js'
import { defineBuiltin } from './define.js'
import { BuiltinError } from './errors.js'
import { formatTime, NAMED_LAYOUTS, parseTime } from './go-layout.js'
import {
  checkRange,
  civilTime,
  fromCivil,
  MAX_NS,
  MIN_NS,
  parseDuration,
  type Zone,
  zoneOffset,
} from './go-time.js'
import { intOperand, numberOperand, operandTypeError, stringOperand } from './operands.js'

const nsOrTz = t.anyOf(t.number, t.tuple(t.number, t.string))

/** An instant with its zone and layout, from `ns`, `[ns, tz]` or `[ns, tz, layout]`. */
function tzTime(v: Value, position: number): { ns: bigint; zone: Zone; layout: string } {
  let nsValue: Value
  let zone: Zone = 'UTC'
  let layout = NAMED_LAYOUTS.RFC3339Nano as string
  if (isArray(v)) {
    if (v.length === 0)
      throw operandTypeError(position, v, 'either number (ns) or [number (ns), string (tz)]')
    nsValue = v[0] as Value
    if (v.length > 1) {
      const tz = stringOperand(v[1] as Value, position)
      zone = tz === '' ? 'UTC' : tz
    }
    if (v.length > 2) layout = stringOperand(v[2] as Value, position)
  } else if (isNumberValue(v)) {
    nsValue = v
  } else {
    throw operandTypeError(position, v, 'either number (ns) or [number (ns), string (tz)]')
  }
  const ns = toBigInt(numberOperand(nsValue, position))
  if (ns === undefined || ns < MIN_NS || ns > MAX_NS) throw new BuiltinError('timestamp too big')
  return { ns, zone, layout }
}

export const nowNs = defineBuiltin({
  name: 'time.now_ns',
  category: 'time',
  description: 'Returns the current time since epoch in nanoseconds.',
  args: [],
  result: t.named('now', t.number, 'nanoseconds since epoch'),
  nondeterministic: true,
  impl: (ctx) => numberFromBigInt(ctx.timeNs),
})

export const parseNs = defineBuiltin({
  name: 'time.parse_ns',
  category: 'time',
  description:
    'Returns the time in nanoseconds parsed from the string in the given format. `undefined` if the result would be outside the valid time range that can fit within an `int64`.',
  args: [
    t.named(
      'layout',
      t.string,
      'format used for parsing, see the [Go `time` package documentation](https://golang.org/pkg/time/#Parse) for more details',
    ),
    t.named('value', t.string, 'input to parse according to `layout`'),
  ],
  result: t.named('ns', t.number, '`value` in nanoseconds since epoch'),
  impl: (_ctx, [l, v]) => numberFromBigInt(checkRange(parseTime(stringOperand(l, 1), stringOperand(v, 2)))),
})

export const parseRfc3339Ns = defineBuiltin({
  name: 'time.parse_rfc3339_ns',
  category: 'time',
  description:
    'Returns the time in nanoseconds parsed from the string in RFC3339 format. `undefined` if the result would be outside the valid time range that can fit within an `int64`.',
  args: [t.named('value', t.string, 'input string to parse in RFC3339 format')],
  result: t.named('ns', t.number, '`value` in nanoseconds since epoch'),
  impl: (_ctx, [v]) => numberFromBigInt(checkRange(parseTime('RFC3339', stringOperand(v, 1)))),
})

export const parseDurationNs = defineBuiltin({
  name: 'time.parse_duration_ns',
  category: 'time',
  description: 'Returns the duration in nanoseconds represented by a string.',
  args: [
    t.named(
      'duration',
      t.string,
      'a duration like "3m"; see the [Go `time` package documentation](https://golang.org/pkg/time/#ParseDuration) for more details',
    ),
  ],
  result: t.named('ns', t.number, 'the `duration` in nanoseconds'),
  impl: (_ctx, [d]) => numberFromBigInt(parseDuration(stringOperand(d, 1))),
})

export const timeDate = defineBuiltin({
  name: 'time.date',
  category: 'time',
  description: 'Returns the `[year, month, day]` for the nanoseconds since epoch.',
  args: [
    t.named(
      'x',
      nsOrTz,
      'a number representing the nanoseconds since the epoch (UTC); or a two-element array of the nanoseconds, and a timezone string',
    ),
  ],
  result: t.named(
    'date',
    t.tuple(t.number, t.number, t.number),
    'an array of `year`, `month` (1-12), and `day` (1-31)',
  ),
  impl: (_ctx, [x]) => {
    const { ns, zone } = tzTime(x, 1)
    const c = civilTime(ns, zone)
    return [c.year, c.month, c.day]
  },
})

export const timeClock = defineBuiltin({
  name: 'time.clock',
  category: 'time',
  description: 'Returns the `[hour, minute, second]` of the day for the nanoseconds since epoch.',
  args: [
    t.named(
      'x',
      nsOrTz,
      'a number representing the nanoseconds since the epoch (UTC); or a two-element array of the nanoseconds, and a timezone string',
    ),
  ],
  result: t.named(
    'output',
    t.tuple(t.number, t.number, t.number),
    'the `hour`, `minute` (0-59), and `second` (0-59) representing the time of day for the nanoseconds since epoch in the supplied timezone (or UTC)',
  ),
  impl: (_ctx, [x]) => {
    const { ns, zone } = tzTime(x, 1)
    const c = civilTime(ns, zone)
    return [c.hour, c.minute, c.second]
  },
})

const WEEKDAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']

export const timeWeekday = defineBuiltin({
  name: 'time.weekday',
  category: 'time',
  description: 'Returns the day of the week (Monday, Tuesday, ...) for the nanoseconds since epoch.',
  args: [
    t.named(
      'x',
      nsOrTz,
      'a number representing the nanoseconds since the epoch (UTC); or a two-element array of the nanoseconds, and a timezone string',
    ),
  ],
  result: t.named(
    'day',
    t.string,
    'the weekday represented by `ns` nanoseconds since the epoch in the supplied timezone (or UTC)',
  ),
  impl: (_ctx, [x]) => {
    const { ns, zone } = tzTime(x, 1)
    return WEEKDAYS[civilTime(ns, zone).weekday] as string
  },
})

export const timeAddDate = defineBuiltin({
  name: 'time.add_date',
  category: 'time',
  description:
    'Returns the nanoseconds since epoch after adding years, months and days to nanoseconds. Month & day values outside their usual ranges after the operation and will be normalized - for example, October 32 would become November 1. `undefined` if the result would be outside the valid time range that can fit within an `int64`.',
  args: [
    t.named('ns', t.number, 'nanoseconds since the epoch'),
    t.named('years', t.number, 'number of years to add'),
    t.named('months', t.number, 'number of months to add'),
    t.named('days', t.number, 'number of days to add'),
  ],
  result: t.named(
    'output',
    t.number,
    'nanoseconds since the epoch representing the input time, with years, months and days added',
  ),
  impl: (_ctx, [n, y, m, d]) => {
    // OPA reads the instant with tzTime, so `[ns, tz]` is accepted and the date moves in that zone.
    const { ns, zone } = tzTime(n, 1)
    const c = civilTime(ns, zone)
    const out = fromCivil(
      c.year + intOperand(y, 2),
      c.month + intOperand(m, 3),
      c.day + intOperand(d, 4),
      c.hour,
      c.minute,
      c.second,
      c.nanos,
      zone,
    )
    return numberFromBigInt(checkRange(out))
  },
})

export const timeDiff = defineBuiltin({
  name: 'time.diff',
  category: 'time',
  description:
    'Returns the difference between two unix timestamps in nanoseconds (with optional timezone strings).',
  args: [
    t.named(
      'ns1',
      nsOrTz,
      'nanoseconds since the epoch; or a two-element array of the nanoseconds, and a timezone string',
    ),
    t.named(
      'ns2',
      nsOrTz,
      'nanoseconds since the epoch; or a two-element array of the nanoseconds, and a timezone string',
    ),
  ],
  result: t.named(
    'output',
    t.tuple(t.number, t.number, t.number, t.number, t.number, t.number),
    'difference between the two timestamps, in years, months, days, hours, minutes, and seconds',
  ),
  impl: (_ctx, [a, b]) => {
    // OPA's tzTime names every time operand `operand 1`, and loads the second zone too.
    const first = tzTime(a, 1)
    const second = tzTime(b, 1)
    zoneOffset(second.zone, 0)
    // Both in the first operand's zone, earlier first (OPA uses icza/gox's algorithm).
    const [t1, t2] = first.ns <= second.ns ? [first.ns, second.ns] : [second.ns, first.ns]
    const c1 = civilTime(t1, first.zone)
    const c2 = civilTime(t2, first.zone)
    let year = c2.year - c1.year
    let month = c2.month - c1.month
    let day = c2.day - c1.day
    let hour = c2.hour - c1.hour
    let min = c2.minute - c1.minute
    let sec = c2.second - c1.second
    if (sec < 0) {
      sec += 60
      min--
    }
    if (min < 0) {
      min += 60
      hour--
    }
    if (hour < 0) {
      hour += 24
      day--
    }
    if (day < 0) {
      // Days in c1's month: the 32nd of it normalizes into the next month.
      const overflow = civilTime(fromCivil(c1.year, c1.month, 32, 0, 0, 0, 0, 'UTC'), 'UTC').day
      day += 32 - overflow
      month--
    }
    if (month < 0) {
      month += 12
      year--
    }
    return [year, month, day, hour, min, sec]
  },
})

export const timeFormat = defineBuiltin({
  name: 'time.format',
  category: 'time',
  description: 'Returns the formatted timestamp for the nanoseconds since epoch.',
  args: [
    t.named(
      'x',
      t.anyOf(t.number, t.tuple(t.number, t.string), t.tuple(t.number, t.string, t.string)),
      'a number representing the nanoseconds since the epoch (UTC); or a two-element array of the nanoseconds, and a timezone string; or a three-element array of ns, timezone string and a layout string or golang defined formatting constant (see golang supported time formats)',
    ),
  ],
  result: t.named(
    'formatted timestamp',
    t.string,
    'the formatted timestamp represented for the nanoseconds since the epoch in the supplied timezone (or UTC)',
  ),
  impl: (_ctx, [x]) => {
    const { ns, zone, layout } = tzTime(x, 1)
    return formatTime(ns, zone, layout)
  },
})

export const testSleep = defineBuiltin({
  name: 'test.sleep',
  category: 'tests',
  description: 'Sleeps for the given duration (for tests only; blocks the thread, at most 10s).',
  args: [t.named('duration', t.string, 'the duration to sleep for')],
  result: t.named('result', t.boolean, 'true'),
  nondeterministic: true,
  impl: (_ctx, [d]) => {
    const ms = Number(parseDuration(stringOperand(d, 1)) / 1_000_000n)
    if (ms > 0) Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, Math.min(ms, 10_000))
    return true
  },
})

/** The time built-ins. */
export const TIME = [
  nowNs,
  parseNs,
  parseRfc3339Ns,
  parseDurationNs,
  timeDate,
  timeClock,
  timeWeekday,
  timeAddDate,
  timeDiff,
  timeFormat,
  testSleep,
] as const
