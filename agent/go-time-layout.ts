/**
 * Formats a time with a Go layout string (`--log-timestamp-format`, as OPA takes it): the reference
 * time `Mon Jan 2 15:04:05 MST 2006` written the way the output should look, e.g. RFC 3339 is
 * `2006-01-02T15:04:05Z07:00`. Local time of the process (TZ), as Go's `time.Now()`.
 */

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

const pad = (n: number, width = 2, fill = '0') => String(n).padStart(width, fill)

function offset(date: Date, colon: boolean, withMinutes: boolean, zulu: boolean): string {
  const minutes = -date.getTimezoneOffset()
  if (zulu && minutes === 0) return 'Z'
  const sign = minutes < 0 ? '-' : '+'
  const abs = Math.abs(minutes)
  const hours = pad(Math.floor(abs / 60))
  if (!withMinutes) return `${sign}${hours}`
  return `${sign}${hours}${colon ? ':' : ''}${pad(abs % 60)}`
}

function fraction(date: Date, digits: number, trim: boolean): string {
  // Date has millisecond precision: finer digits are zeros.
  const text = pad(date.getMilliseconds(), 3).padEnd(9, '0').slice(0, digits)
  if (!trim) return `.${text}`
  const trimmed = text.replace(/0+$/, '')
  return trimmed === '' ? '' : `.${trimmed}`
}

type Token = [string, (d: Date) => string]

// Longest first, so `2006` wins over `2` and `January` over `Jan`.
const TOKENS: Token[] = [
  ['Z07:00', (d) => offset(d, true, true, true)],
  ['-07:00', (d) => offset(d, true, true, false)],
  ['Z0700', (d) => offset(d, false, true, true)],
  ['-0700', (d) => offset(d, false, true, false)],
  ['January', (d) => MONTHS[d.getMonth()] as string],
  ['Monday', (d) => DAYS[d.getDay()] as string],
  ['2006', (d) => pad(d.getFullYear(), 4)],
  ['Z07', (d) => offset(d, false, false, true)],
  ['-07', (d) => offset(d, false, false, false)],
  ['Jan', (d) => (MONTHS[d.getMonth()] as string).slice(0, 3)],
  ['Mon', (d) => (DAYS[d.getDay()] as string).slice(0, 3)],
  ['MST', (d) => (d.getTimezoneOffset() === 0 ? 'UTC' : offset(d, false, true, false))],
  ['_2', (d) => pad(d.getDate(), 2, ' ')],
  ['01', (d) => pad(d.getMonth() + 1)],
  ['02', (d) => pad(d.getDate())],
  ['03', (d) => pad(d.getHours() % 12 || 12)],
  ['04', (d) => pad(d.getMinutes())],
  ['05', (d) => pad(d.getSeconds())],
  ['06', (d) => pad(d.getFullYear() % 100)],
  ['15', (d) => pad(d.getHours())],
  ['PM', (d) => (d.getHours() < 12 ? 'AM' : 'PM')],
  ['pm', (d) => (d.getHours() < 12 ? 'am' : 'pm')],
  ['1', (d) => String(d.getMonth() + 1)],
  ['2', (d) => String(d.getDate())],
  ['3', (d) => String(d.getHours() % 12 || 12)],
  ['4', (d) => String(d.getMinutes())],
  ['5', (d) => String(d.getSeconds())],
]

/** `date` written as `layout` says. */
export function formatGoTime(date: Date, layout: string): string {
  let out = ''
  let i = 0
  while (i < layout.length) {
    // Fractional seconds: `.000` keeps zeros, `.999` trims them (also after a comma).
    const frac = /^[.,](0+|9+)(?!\d)/.exec(layout.slice(i))
    if (frac?.[1]) {
      out += fraction(date, frac[1].length, frac[1][0] === '9')
      i += frac[0].length
      continue
    }
    const token = TOKENS.find(([name]) => layout.startsWith(name, i))
    if (token) {
      out += token[1](date)
      i += token[0].length
    } else {
      out += layout[i]
      i++
    }
  }
  return out
}
