/**
 * The `format` checks of gojsonschema (OPA's internal copy, FormatCheckers) for the formats whose
 * check is Go's time.Parse, net.ParseIP, regexp.Compile or a regular expression. `email` and
 * `idn-email` (net/mail) and the URI family (`uri`, `uri-reference`, `iri`, `iri-reference`,
 * `uri-template`, net/url) are not checked here; an unknown format passes, as in gojsonschema.
 */
import { BuiltinError } from './errors.js'
import { parseTime } from './go-layout.js'
import { parseIP } from './net-ip.js'
import { compileRegex } from './regex-cache.js'

const HOSTNAME =
  /^([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]{0,61}[a-zA-Z0-9])(\.([a-zA-Z0-9]|[a-zA-Z0-9][a-zA-Z0-9-]{0,61}[a-zA-Z0-9]))*$/
const UUID = /^[a-f0-9]{8}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{4}-[a-f0-9]{12}$/i
const JSON_POINTER = /^(?:\/(?:[^~/]|~0|~1)*)*$/
const RELATIVE_JSON_POINTER = /^(?:0|[1-9][0-9]*)(?:#|(?:\/(?:[^~/]|~0|~1)*)*)$/

function parses(layouts: readonly string[], s: string): boolean {
  for (const layout of layouts) {
    try {
      parseTime(layout, s)
      return true
    } catch (err) {
      if (!(err instanceof BuiltinError)) throw err
    }
  }
  return false
}

function compiles(s: string): boolean {
  if (s === '') return true
  try {
    compileRegex(s)
    return true
  } catch (err) {
    if (err instanceof BuiltinError) return false
    throw err
  }
}

const CHECKERS = new Map<string, (s: string) => boolean>([
  ['date', (s) => parses(['2006-01-02'], s)],
  ['time', (s) => parses(['15:04:05Z07:00', '15:04:05'], s)],
  ['date-time', (s) => parses(['15:04:05', '15:04:05Z07:00', '2006-01-02', 'RFC3339', 'RFC3339Nano'], s)],
  ['hostname', (s) => HOSTNAME.test(s) && Buffer.byteLength(s, 'utf8') < 256],
  ['ipv4', (s) => parseIP(s) !== undefined && s.includes('.')],
  ['ipv6', (s) => parseIP(s) !== undefined && s.includes(':')],
  ['uuid', (s) => UUID.test(s)],
  ['regex', compiles],
  ['json-pointer', (s) => JSON_POINTER.test(s)],
  ['relative-json-pointer', (s) => RELATIVE_JSON_POINTER.test(s)],
])

/** Whether `s` passes gojsonschema's check for `format` (true for formats not checked here). */
export function matchesFormat(format: string, s: string): boolean {
  const check = CHECKERS.get(format)
  return check === undefined || check(s)
}
