/**
 * Go time layouts (`2006-01-02T15:04:05Z07:00` and the named ones: RFC3339, RFC1123Z, ...) for
 * `time.format` and `time.parse_ns`, with Go's layout chunks, formatting and parsing rules.
 */
import { BuiltinError } from './errors.js'
import { civilFromDays, civilTime, daysFromCivil, type Zone } from './go-time.js'

const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
]

const DAYS = ['Sunday', 'Monday', 'Tuesday', 'Wednesday', 'Thursday', 'Friday', 'Saturday']

/** Go's named layouts, which OPA accepts by name. */
export const NAMED_LAYOUTS: Readonly<Record<string, string>> = {
  ANSIC: 'Mon Jan _2 15:04:05 2006',
  UnixDate: 'Mon Jan _2 15:04:05 MST 2006',
  RubyDate: 'Mon Jan 02 15:04:05 -0700 2006',
  RFC822: '02 Jan 06 15:04 MST',
  RFC822Z: '02 Jan 06 15:04 -0700',
  RFC850: 'Monday, 02-Jan-06 15:04:05 MST',
  RFC1123: 'Mon, 02 Jan 2006 15:04:05 MST',
  RFC1123Z: 'Mon, 02 Jan 2006 15:04:05 -0700',
  RFC3339: '2006-01-02T15:04:05Z07:00',
  RFC3339Nano: '2006-01-02T15:04:05.999999999Z07:00',
  Kitchen: '3:04PM',
  Stamp: 'Jan _2 15:04:05',
  StampMilli: 'Jan _2 15:04:05.000',
  StampMicro: 'Jan _2 15:04:05.000000',
  StampNano: 'Jan _2 15:04:05.000000000',
  DateTime: '2006-01-02 15:04:05',
  DateOnly: '2006-01-02',
  TimeOnly: '15:04:05',
}

type Std =
  | 'LongMonth'
  | 'Month'
  | 'NumMonth'
  | 'ZeroMonth'
  | 'LongWeekDay'
  | 'WeekDay'
  | 'Day'
  | 'UnderDay'
  | 'ZeroDay'
  | 'UnderYearDay'
  | 'ZeroYearDay'
  | 'Hour'
  | 'Hour12'
  | 'ZeroHour12'
  | 'Minute'
  | 'ZeroMinute'
  | 'Second'
  | 'ZeroSecond'
  | 'LongYear'
  | 'Year'
  | 'PM'
  | 'pm'
  | 'TZ'
  | 'ISO8601TZ'
  | 'ISO8601SecondsTZ'
  | 'ISO8601ShortTZ'
  | 'ISO8601ColonTZ'
  | 'ISO8601ColonSecondsTZ'
  | 'NumTZ'
  | 'NumSecondsTz'
  | 'NumShortTZ'
  | 'NumColonTZ'
  | 'NumColonSecondsTZ'
  | 'Frac0'
  | 'Frac9'

/** A layout chunk: literal text, or a field (with digits count and separator for fractions). */
type Chunk = { literal: string } | { std: Std; digits?: number; sep?: string }

const TZ_FORMS: Array<[string, Std]> = [
  ['070000', 'NumSecondsTz'],
  ['07:00:00', 'NumColonSecondsTZ'],
  ['0700', 'NumTZ'],
  ['07:00', 'NumColonTZ'],
  ['07', 'NumShortTZ'],
]
const ISO_FORMS: Record<string, Std> = {
  NumSecondsTz: 'ISO8601SecondsTZ',
  NumColonSecondsTZ: 'ISO8601ColonSecondsTZ',
  NumTZ: 'ISO8601TZ',
  NumColonTZ: 'ISO8601ColonTZ',
  NumShortTZ: 'ISO8601ShortTZ',
}

const layoutCache = new Map<string, Chunk[]>()

/** Splits a layout into chunks, as Go's `nextStdChunk` does (cached per layout). */
export function parseLayout(layout: string): Chunk[] {
  const hit = layoutCache.get(layout)
  if (hit) return hit
  const chunks = splitLayout(layout)
  if (layoutCache.size > 256) layoutCache.clear()
  layoutCache.set(layout, chunks)
  return chunks
}

function splitLayout(layout: string): Chunk[] {
  const out: Chunk[] = []
  let lit = ''
  const push = (c: Chunk, len: number) => {
    if (lit) out.push({ literal: lit })
    lit = ''
    out.push(c)
    i += len
  }
  let i = 0
  while (i < layout.length) {
    const rest = layout.slice(i)
    const c = layout[i] as string
    const isDigit = (j: number) => j < layout.length && /[0-9]/.test(layout[j] as string)
    if (rest.startsWith('January')) push({ std: 'LongMonth' }, 7)
    else if (rest.startsWith('Jan')) push({ std: 'Month' }, 3)
    else if (rest.startsWith('Monday')) push({ std: 'LongWeekDay' }, 6)
    else if (rest.startsWith('Mon')) push({ std: 'WeekDay' }, 3)
    else if (rest.startsWith('MST')) push({ std: 'TZ' }, 3)
    else if (rest.startsWith('002')) push({ std: 'ZeroYearDay' }, 3)
    else if (/^0[1-6]/.test(rest)) {
      const std = (['ZeroMonth', 'ZeroDay', 'ZeroHour12', 'ZeroMinute', 'ZeroSecond', 'Year'] as const)[
        Number(rest[1]) - 1
      ] as Std
      push({ std }, 2)
    } else if (rest.startsWith('15')) push({ std: 'Hour' }, 2)
    else if (c === '1') push({ std: 'NumMonth' }, 1)
    else if (rest.startsWith('2006')) push({ std: 'LongYear' }, 4)
    else if (c === '2') push({ std: 'Day' }, 1)
    else if (rest.startsWith('__2')) push({ std: 'UnderYearDay' }, 3)
    else if (rest.startsWith('_2') && !rest.startsWith('_2006')) push({ std: 'UnderDay' }, 2)
    else if (c === '3') push({ std: 'Hour12' }, 1)
    else if (c === '4') push({ std: 'Minute' }, 1)
    else if (c === '5') push({ std: 'Second' }, 1)
    else if (rest.startsWith('PM')) push({ std: 'PM' }, 2)
    else if (rest.startsWith('pm')) push({ std: 'pm' }, 2)
    else if ((c === '-' || c === 'Z') && TZ_FORMS.some(([f]) => rest.startsWith(f, 1))) {
      const [form, std] = TZ_FORMS.find(([f]) => rest.startsWith(f, 1)) as [string, Std]
      push({ std: c === 'Z' ? (ISO_FORMS[std] as Std) : std }, form.length + 1)
    } else if ((c === '.' || c === ',') && (layout[i + 1] === '0' || layout[i + 1] === '9')) {
      const ch = layout[i + 1]
      let j = i + 1
      while (j < layout.length && layout[j] === ch) j++
      if (!isDigit(j)) push({ std: ch === '0' ? 'Frac0' : 'Frac9', digits: j - i - 1, sep: c }, j - i)
      else {
        lit += c
        i++
      }
    } else {
      lit += c
      i++
    }
  }
  if (lit) out.push({ literal: lit })
  return out
}

function zoneText(offset: number, std: Std): string {
  const iso = std.startsWith('ISO')
  if (iso && offset === 0) return 'Z'
  const sign = offset < 0 ? '-' : '+'
  const abs = Math.abs(offset)
  const hh = String(Math.floor(abs / 3600)).padStart(2, '0')
  const mm = String(Math.floor((abs % 3600) / 60)).padStart(2, '0')
  const ss = String(abs % 60).padStart(2, '0')
  if (std.endsWith('ShortTZ')) return sign + hh
  if (std === 'NumColonTZ' || std === 'ISO8601ColonTZ') return `${sign}${hh}:${mm}`
  if (std === 'NumColonSecondsTZ' || std === 'ISO8601ColonSecondsTZ') return `${sign}${hh}:${mm}:${ss}`
  if (std === 'NumSecondsTz' || std === 'ISO8601SecondsTZ') return sign + hh + mm + ss
  return sign + hh + mm
}

/** Go's `Time.Format`. */
export function formatTime(ns: bigint, zone: Zone, layout: string): string {
  const t = civilTime(ns, zone)
  const p2 = (n: number) => String(n).padStart(2, '0')
  let out = ''
  for (const chunk of parseLayout(NAMED_LAYOUTS[layout] ?? layout)) {
    if ('literal' in chunk) {
      out += chunk.literal
      continue
    }
    switch (chunk.std) {
      case 'LongMonth':
        out += MONTHS[t.month - 1]
        break
      case 'Month':
        out += (MONTHS[t.month - 1] as string).slice(0, 3)
        break
      case 'NumMonth':
        out += t.month
        break
      case 'ZeroMonth':
        out += p2(t.month)
        break
      case 'LongWeekDay':
        out += DAYS[t.weekday]
        break
      case 'WeekDay':
        out += (DAYS[t.weekday] as string).slice(0, 3)
        break
      case 'Day':
        out += t.day
        break
      case 'UnderDay':
        out += String(t.day).padStart(2, ' ')
        break
      case 'ZeroDay':
        out += p2(t.day)
        break
      case 'UnderYearDay':
        out += String(t.yearDay).padStart(3, ' ')
        break
      case 'ZeroYearDay':
        out += String(t.yearDay).padStart(3, '0')
        break
      case 'Hour':
        out += p2(t.hour)
        break
      case 'Hour12':
        out += t.hour % 12 === 0 ? 12 : t.hour % 12
        break
      case 'ZeroHour12':
        out += p2(t.hour % 12 === 0 ? 12 : t.hour % 12)
        break
      case 'Minute':
        out += t.minute
        break
      case 'ZeroMinute':
        out += p2(t.minute)
        break
      case 'Second':
        out += t.second
        break
      case 'ZeroSecond':
        out += p2(t.second)
        break
      case 'LongYear':
        out += t.year < 0 ? `-${String(-t.year).padStart(4, '0')}` : String(t.year).padStart(4, '0')
        break
      case 'Year':
        out += p2(((t.year % 100) + 100) % 100)
        break
      case 'PM':
        out += t.hour >= 12 ? 'PM' : 'AM'
        break
      case 'pm':
        out += t.hour >= 12 ? 'pm' : 'am'
        break
      case 'TZ':
        out += t.zoneName
        break
      case 'Frac0':
        out += chunk.sep + String(t.nanos).padStart(9, '0').slice(0, chunk.digits)
        break
      case 'Frac9': {
        const digits = String(t.nanos).padStart(9, '0').slice(0, chunk.digits).replace(/0+$/, '')
        if (digits) out += chunk.sep + digits
        break
      }
      default:
        out += zoneText(t.offset, chunk.std)
    }
  }
  return out
}

/** Go's `time.Parse` (UTC unless the value carries an offset). Returns nanoseconds. */
export function parseTime(layoutName: string, value: string): bigint {
  const layout = NAMED_LAYOUTS[layoutName] ?? layoutName
  const fail = (what: string, elem: string) =>
    new BuiltinError(
      `parsing time ${JSON.stringify(value)} as ${JSON.stringify(layout)}: cannot parse ${JSON.stringify(what)} as ${JSON.stringify(elem)}`,
    )
  let year = 1
  let month = 1
  let day = 1
  let hour = 0
  let minute = 0
  let second = 0
  let nanos = 0
  let pm: boolean | undefined
  let offset: number | undefined
  let rest = value
  const chunks = parseLayout(layout)
  const num = (min: number, max: number, fixed: boolean, elem: string): number => {
    const m = (fixed ? new RegExp(`^\\d{${min}}`) : new RegExp(`^\\d{1,${max}}`)).exec(rest)
    if (!m) throw fail(rest, elem)
    rest = rest.slice(m[0].length)
    return Number(m[0])
  }
  const word = (names: string[], elem: string): number => {
    const i = names.findIndex((n) => rest.toLowerCase().startsWith(n.toLowerCase()))
    if (i < 0) throw fail(rest, elem)
    rest = rest.slice((names[i] as string).length)
    return i
  }
  // Go's time.Parse: a field read as a number but outside its range (its rangeErrString).
  const outOfRange = (field: string) =>
    new BuiltinError(`parsing time ${JSON.stringify(value)}: ${field} out of range`)
  for (let k = 0; k < chunks.length; k++) {
    const chunk = chunks[k] as Chunk
    if ('literal' in chunk) {
      if (!rest.startsWith(chunk.literal)) throw fail(rest, chunk.literal)
      rest = rest.slice(chunk.literal.length)
      continue
    }
    switch (chunk.std) {
      case 'LongYear': {
        const m = /^[+-]?\d{4,}/.exec(rest)
        if (!m) throw fail(rest, '2006')
        year = Number(m[0])
        rest = rest.slice(m[0].length)
        break
      }
      case 'Year': {
        const y = num(2, 2, true, '06')
        year = y >= 69 ? 1900 + y : 2000 + y
        break
      }
      case 'LongMonth':
        month = word(MONTHS, 'January') + 1
        break
      case 'Month':
        month =
          word(
            MONTHS.map((m) => m.slice(0, 3)),
            'Jan',
          ) + 1
        break
      case 'NumMonth':
      case 'ZeroMonth':
        month = num(2, 2, chunk.std === 'ZeroMonth', chunk.std === 'ZeroMonth' ? '01' : '1')
        if (month < 1 || month > 12) throw outOfRange('month')
        break
      case 'LongWeekDay':
        word(DAYS, 'Monday')
        break
      case 'WeekDay':
        word(
          DAYS.map((d) => d.slice(0, 3)),
          'Mon',
        )
        break
      case 'Day':
      case 'UnderDay':
      case 'ZeroDay':
        if (chunk.std === 'UnderDay' && rest.startsWith(' ')) rest = rest.slice(1)
        day = num(2, 2, chunk.std === 'ZeroDay', '02')
        break
      case 'UnderYearDay':
      case 'ZeroYearDay':
        while (chunk.std === 'UnderYearDay' && rest.startsWith(' ')) rest = rest.slice(1)
        num(3, 3, chunk.std === 'ZeroYearDay', '002')
        break
      case 'Hour':
        hour = num(2, 2, false, '15')
        if (hour > 23) throw outOfRange('hour')
        break
      case 'Hour12':
      case 'ZeroHour12':
        hour = num(2, 2, chunk.std === 'ZeroHour12', '03')
        if (hour < 0 || hour > 12) throw outOfRange('hour')
        break
      case 'Minute':
      case 'ZeroMinute':
        minute = num(2, 2, chunk.std === 'ZeroMinute', '04')
        if (minute > 59) throw outOfRange('minute')
        break
      case 'Second':
      case 'ZeroSecond': {
        second = num(2, 2, chunk.std === 'ZeroSecond', '05')
        if (second > 59) throw outOfRange('second')
        // A fractional second in the value is accepted even when the layout has none.
        const next = chunks[k + 1]
        const frac = /^[.,](\d+)/.exec(rest)
        if (frac && !(next && 'std' in next && (next.std === 'Frac0' || next.std === 'Frac9'))) {
          nanos = Number((frac[1] as string).slice(0, 9).padEnd(9, '0'))
          rest = rest.slice(frac[0].length)
        }
        break
      }
      case 'PM':
      case 'pm': {
        const m = /^(AM|PM)/i.exec(rest)
        if (!m) throw fail(rest, chunk.std)
        pm = (m[1] as string).toUpperCase() === 'PM'
        rest = rest.slice(2)
        break
      }
      case 'Frac0':
      case 'Frac9': {
        const m =
          chunk.std === 'Frac0'
            ? new RegExp(`^[.,](\\d{${chunk.digits}})`).exec(rest)
            : /^[.,](\d+)/.exec(rest)
        if (!m) {
          if (chunk.std === 'Frac9') break
          throw fail(rest, `${chunk.sep}${'0'.repeat(chunk.digits ?? 0)}`)
        }
        nanos = Number((m[1] as string).slice(0, 9).padEnd(9, '0'))
        rest = rest.slice(m[0].length)
        break
      }
      case 'TZ': {
        if (rest.startsWith('UTC')) {
          offset = 0
          rest = rest.slice(3)
          break
        }
        const m = /^(GMT([+-]\d{1,2})?|[A-Z]{3,5}T?)/.exec(rest)
        if (!m) throw fail(rest, 'MST')
        offset = m[2] ? Number(m[2]) * 3600 : 0
        rest = rest.slice(m[0].length)
        break
      }
      default: {
        const std = chunk.std
        if (std.startsWith('ISO') && rest.startsWith('Z')) {
          offset = 0
          rest = rest.slice(1)
          break
        }
        const shapes: Record<string, RegExp> = {
          ShortTZ: /^([+-])(\d\d)/,
          ColonSecondsTZ: /^([+-])(\d\d):(\d\d):(\d\d)/,
          ColonTZ: /^([+-])(\d\d):(\d\d)/,
          SecondsTZ: /^([+-])(\d\d)(\d\d)(\d\d)/,
          TZ: /^([+-])(\d\d)(\d\d)/,
        }
        const shape = Object.keys(shapes).find((s) => std.endsWith(s)) as string
        const m = (shapes[shape] as RegExp).exec(rest)
        if (!m) throw fail(rest, std)
        const [hr, mm, ss] = [Number(m[2]), Number(m[3] ?? 0), Number(m[4] ?? 0)]
        // Go tests offsets with > (people do write +24:00 or 60 minutes).
        if (hr > 24) throw outOfRange('time zone offset hour')
        if (mm > 60) throw outOfRange('time zone offset minute')
        if (ss > 60) throw outOfRange('time zone offset second')
        const secs = hr * 3600 + mm * 60 + ss
        offset = m[1] === '-' ? -secs : secs
        rest = rest.slice(m[0].length)
      }
    }
  }
  if (rest !== '')
    throw new BuiltinError(`parsing time ${JSON.stringify(value)}: extra text: ${JSON.stringify(rest)}`)
  if (pm !== undefined) {
    if (pm && hour < 12) hour += 12
    else if (!pm && hour === 12) hour = 0
  }
  const daysIn = civilFromDays(daysFromCivil(year, month + 1, 1) - 1).day
  if (day < 1 || day > daysIn)
    throw new BuiltinError(`parsing time ${JSON.stringify(value)}: day out of range`)
  const local = BigInt(daysFromCivil(year, month, day)) * 86400n + BigInt(hour * 3600 + minute * 60 + second)
  return (local - BigInt(offset ?? 0)) * 1_000_000_000n + BigInt(nanos)
}
