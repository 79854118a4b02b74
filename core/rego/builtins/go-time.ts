/**
 * Go's time package as OPA's time.* built-ins use it: the proleptic Gregorian calendar, IANA zones
 * (through Intl), and `time.ParseDuration` (layouts are in go-layout.ts). Instants are nanoseconds
 * since the epoch as bigints.
 */
import { BuiltinError } from './errors.js'

/** Smallest and largest instants OPA can return (int64 nanoseconds). */
export const MIN_NS = -(2n ** 63n)
export const MAX_NS = 2n ** 63n - 1n

// ------------------------------------------------------------------------------------------------
// Calendar

/** Days since 1970-01-01 of a civil date (month 1-12; out-of-range days/months normalize). */
export function daysFromCivil(year: number, month: number, day: number): number {
  const y0 = year + Math.floor((month - 1) / 12)
  const m0 = ((((month - 1) % 12) + 12) % 12) + 1
  const y = m0 <= 2 ? y0 - 1 : y0
  const era = Math.floor(y / 400)
  const yoe = y - era * 400
  const mp = (m0 + 9) % 12
  const doy = Math.floor((153 * mp + 2) / 5) + day - 1
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy
  return era * 146097 + doe - 719468
}

/** The civil date of a day number. */
export function civilFromDays(days: number): { year: number; month: number; day: number } {
  const z = days + 719468
  const era = Math.floor(z / 146097)
  const doe = z - era * 146097
  const yoe = Math.floor(
    (doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365,
  )
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100))
  const mp = Math.floor((5 * doy + 2) / 153)
  const day = doy - Math.floor((153 * mp + 2) / 5) + 1
  const month = mp < 10 ? mp + 3 : mp - 9
  return { year: yoe + era * 400 + (month <= 2 ? 1 : 0), month, day }
}

/** Broken-down wall-clock time in a zone. */
export interface Civil {
  year: number
  month: number
  day: number
  hour: number
  minute: number
  second: number
  nanos: number
  weekday: number
  yearDay: number
  offset: number
  zoneName: string
}

// ------------------------------------------------------------------------------------------------
// Zones

const formatters = new Map<string, Intl.DateTimeFormat>()

function zoneFormatter(zone: string): Intl.DateTimeFormat {
  let f = formatters.get(zone)
  if (!f) {
    try {
      f = new Intl.DateTimeFormat('en-US', {
        timeZone: zone,
        hourCycle: 'h23',
        era: 'short',
        year: 'numeric',
        month: 'numeric',
        day: 'numeric',
        hour: 'numeric',
        minute: 'numeric',
        second: 'numeric',
        timeZoneName: 'short',
      })
    } catch {
      throw new BuiltinError(`unknown time zone ${zone}`)
    }
    formatters.set(zone, f)
  }
  return f
}

/** A zone: `UTC` (also for `""`), `Local`, or an IANA name. */
export type Zone = string

/** Offset from UTC in seconds, and the zone's abbreviation, at `epochSeconds`. */
export function zoneOffset(zone: Zone, epochSeconds: number): { offset: number; name: string } {
  if (zone === 'UTC' || zone === '') return { offset: 0, name: 'UTC' }
  const tz = zone === 'Local' ? Intl.DateTimeFormat().resolvedOptions().timeZone : zone
  const parts = zoneFormatter(tz).formatToParts(new Date(epochSeconds * 1000))
  const get = (type: string) => parts.find((p) => p.type === type)?.value ?? ''
  let year = Number(get('year'))
  if (get('era') === 'BC') year = 1 - year
  const local =
    daysFromCivil(year, Number(get('month')), Number(get('day'))) * 86400 +
    Number(get('hour')) * 3600 +
    Number(get('minute')) * 60 +
    Number(get('second'))
  const offset = local - epochSeconds
  let name = get('timeZoneName')
  const gmt = /^GMT([+-])(\d+)(?::(\d+))?$/.exec(name)
  if (gmt) name = `${gmt[1]}${(gmt[2] ?? '').padStart(2, '0')}${gmt[3] ?? ''}`
  else if (name === 'GMT') name = tz === 'UTC' ? 'UTC' : 'GMT'
  return { offset, name }
}

/** Splits an instant into whole seconds and nanoseconds (floor). */
export function splitNs(ns: bigint): { seconds: number; nanos: number } {
  let s = ns / 1_000_000_000n
  let n = ns % 1_000_000_000n
  if (n < 0n) {
    n += 1_000_000_000n
    s -= 1n
  }
  return { seconds: Number(s), nanos: Number(n) }
}

/** Wall-clock fields of an instant in a zone. */
export function civilTime(ns: bigint, zone: Zone): Civil {
  const { seconds, nanos } = splitNs(ns)
  const { offset, name } = zoneOffset(zone, seconds)
  const local = seconds + offset
  const days = Math.floor(local / 86400)
  const rest = local - days * 86400
  const { year, month, day } = civilFromDays(days)
  return {
    year,
    month,
    day,
    hour: Math.floor(rest / 3600),
    minute: Math.floor((rest % 3600) / 60),
    second: rest % 60,
    nanos,
    weekday: (((days + 4) % 7) + 7) % 7,
    yearDay: days - daysFromCivil(year, 1, 1) + 1,
    offset,
    zoneName: name,
  }
}

/** The instant of a wall-clock time in a zone (Go's `time.Date`, which normalizes overflow). */
export function fromCivil(
  year: number,
  month: number,
  day: number,
  hour: number,
  minute: number,
  second: number,
  nanos: number,
  zone: Zone,
): bigint {
  const local = daysFromCivil(year, month, 1) * 86400 + (day - 1) * 86400 + hour * 3600 + minute * 60 + second
  // Find the offset that applies at that wall time (twice, to settle around transitions).
  let offset = zoneOffset(zone, local).offset
  offset = zoneOffset(zone, local - offset).offset
  return BigInt(local - offset) * 1_000_000_000n + BigInt(nanos)
}

/** Throws OPA's error when an instant does not fit int64 nanoseconds. */
export function checkRange(ns: bigint): bigint {
  if (ns < MIN_NS || ns > MAX_NS) throw new BuiltinError('time outside of valid range')
  return ns
}

// ------------------------------------------------------------------------------------------------
// Durations

const UNITS: Record<string, bigint> = {
  ns: 1n,
  us: 1_000n,
  µs: 1_000n,
  μs: 1_000n,
  ms: 1_000_000n,
  s: 1_000_000_000n,
  m: 60_000_000_000n,
  h: 3_600_000_000_000n,
}

/** Go's `time.ParseDuration`, in nanoseconds. */
export function parseDuration(text: string): bigint {
  const invalid = () => new BuiltinError(`time: invalid duration ${JSON.stringify(text)}`)
  let s = text
  let neg = false
  if (s.startsWith('-') || s.startsWith('+')) {
    neg = s[0] === '-'
    s = s.slice(1)
  }
  if (s === '0') return 0n
  if (s === '') throw invalid()
  let total = 0n
  while (s !== '') {
    const m = /^(\d*)(?:\.(\d*))?/.exec(s)
    const whole = m?.[1] ?? ''
    const frac = m?.[2] ?? ''
    if (!m || (whole === '' && frac === '')) throw invalid()
    s = s.slice(m[0].length)
    const u = /^[^\d.]+/.exec(s)
    if (!u) throw new BuiltinError(`time: missing unit in duration ${JSON.stringify(text)}`)
    const unit = UNITS[u[0]]
    if (unit === undefined)
      throw new BuiltinError(`time: unknown unit ${JSON.stringify(u[0])} in duration ${JSON.stringify(text)}`)
    s = s.slice(u[0].length)
    total += BigInt(whole || '0') * unit
    if (frac) total += (BigInt(frac) * unit) / 10n ** BigInt(frac.length)
    if (total > MAX_NS + (neg ? 1n : 0n)) throw invalid()
  }
  return neg ? -total : total
}
