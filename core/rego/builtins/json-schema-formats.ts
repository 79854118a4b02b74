/**
 * The `format` checks of gojsonschema (OPA's internal copy, FormatCheckers): Go's time.Parse,
 * net.ParseIP, regexp.Compile, net/mail.ParseAddress (go-mail.ts), net/url.Parse (go-url.ts) or a
 * regular expression; an unknown format passes, as in gojsonschema.
 */
import { BuiltinError } from './errors.js'
import { parseTime } from './go-layout.js'
import { isGoMailAddress } from './go-mail.js'
import { parseGoUrl } from './go-url.js'
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

// A URI: Go parses it, with a scheme; a reference: Go parses it; neither may hold a backslash.
function isUri(s: string): boolean {
  return !s.includes('\\') && (parseGoUrl(s)?.scheme ?? '') !== ''
}

function isUriReference(s: string): boolean {
  return !s.includes('\\') && parseGoUrl(s) !== undefined
}

// A URI template (RFC 6570, as gojsonschema checks it): a reference whose unescaped path has no
// `{` left open (what follows a `{` up to the next `}` is an expression).
function isUriTemplate(s: string): boolean {
  const url = s.includes('\\') ? undefined : parseGoUrl(s)
  if (url === undefined) return false
  for (let i = 0; i < url.path.length; i++) {
    if (url.path[i] !== '{') continue
    i = url.path.indexOf('}', i + 1)
    if (i < 0) return false
  }
  return true
}

const CHECKERS = new Map<string, (s: string) => boolean>([
  ['email', isGoMailAddress],
  ['idn-email', isGoMailAddress],
  ['uri', isUri],
  ['iri', isUri],
  ['uri-reference', isUriReference],
  ['iri-reference', isUriReference],
  ['uri-template', isUriTemplate],
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

/** Whether `s` passes gojsonschema's check for `format` (true for a format it does not know). */
export function matchesFormat(format: string, s: string): boolean {
  const check = CHECKERS.get(format)
  return check === undefined || check(s)
}
