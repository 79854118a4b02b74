/**
 * What Go's `net/url.Parse` accepts, and the parts of the result the JSON-schema format checks read
 * (gojsonschema's `uri`, `uri-reference` and `uri-template` formats, which OPA's
 * `json.match_schema` runs). Written from Go's documented behaviour: a control character anywhere
 * before the fragment, a scheme that starts with `:`, a colon in the first segment of a relative
 * path, a bad `%` escape in the path, fragment, user info or host, a host character outside RFC
 * 3986's set, an invalid port, an unclosed `[` host, or user info outside its character set is an
 * error; everything else parses.
 */

/** The parts of a parsed URL the format checks need. */
export interface GoUrl {
  /** Lower-cased scheme, or '' when there is none. */
  scheme: string
  /** The unescaped path ('' for an opaque URL such as `mailto:x`). */
  path: string
}

enum Mode {
  Path,
  Host,
  Zone,
  UserPassword,
  Fragment,
}

/** Go's `url.Parse(raw)`: the parsed parts, or undefined where Go returns an error. */
export function parseGoUrl(raw: string): GoUrl | undefined {
  const hash = raw.indexOf('#')
  const url = parseWithoutFragment(hash < 0 ? raw : raw.slice(0, hash))
  if (url === undefined) return undefined
  if (hash >= 0 && unescapeUrlPart(raw.slice(hash + 1), Mode.Fragment) === undefined) return undefined
  return url
}

function parseWithoutFragment(raw: string): GoUrl | undefined {
  for (let i = 0; i < raw.length; i++) {
    const c = raw.charCodeAt(i)
    if (c < 0x20 || c === 0x7f) return undefined
  }
  if (raw === '' || raw === '*') return { scheme: '', path: raw }
  const split = schemeOf(raw)
  if (split === undefined) return undefined
  const scheme = split.scheme.toLowerCase()
  let rest = split.rest
  // The query is not checked: `?` ends the path.
  const question = rest.indexOf('?')
  if (question >= 0) rest = rest.slice(0, question)
  if (!rest.startsWith('/')) {
    if (scheme !== '') return { scheme, path: '' }
    const colon = rest.indexOf(':')
    const slash = rest.indexOf('/')
    if (colon >= 0 && (slash < 0 || colon < slash)) return undefined
  }
  if ((scheme !== '' || !rest.startsWith('///')) && rest.startsWith('//')) {
    const end = rest.indexOf('/', 2)
    const authority = end < 0 ? rest.slice(2) : rest.slice(2, end)
    rest = end < 0 ? '' : rest.slice(end)
    if (!authorityParses(authority)) return undefined
  }
  const path = unescapeUrlPart(rest, Mode.Path)
  return path === undefined ? undefined : { scheme, path }
}

// `scheme:rest`, or no scheme when the text before the first `:` is not one; undefined when it
// starts with `:` (Go: "missing protocol scheme").
function schemeOf(raw: string): { scheme: string; rest: string } | undefined {
  for (let i = 0; i < raw.length; i++) {
    const c = raw[i]!
    if ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z')) continue
    if ((c >= '0' && c <= '9') || c === '+' || c === '-' || c === '.') {
      if (i === 0) return { scheme: '', rest: raw }
      continue
    }
    if (c === ':') return i === 0 ? undefined : { scheme: raw.slice(0, i), rest: raw.slice(i + 1) }
    return { scheme: '', rest: raw }
  }
  return { scheme: '', rest: raw }
}

function authorityParses(authority: string): boolean {
  const at = authority.lastIndexOf('@')
  if (!hostParses(at < 0 ? authority : authority.slice(at + 1))) return false
  if (at < 0) return true
  const userinfo = authority.slice(0, at)
  for (const c of userinfo) if (!USERINFO.test(c)) return false
  // The user name ends at the first ':', the password is the rest; each must unescape.
  const colon = userinfo.indexOf(':')
  const parts = colon < 0 ? [userinfo] : [userinfo.slice(0, colon), userinfo.slice(colon + 1)]
  return parts.every((part) => unescapeUrlPart(part, Mode.UserPassword) !== undefined)
}

const USERINFO = /^[A-Za-z0-9\-._:~!$&'()*+,;=%@]$/

function hostParses(host: string): boolean {
  if (host.startsWith('[')) {
    const close = host.lastIndexOf(']')
    if (close < 0 || !optionalPort(host.slice(close + 1))) return false
    const zone = host.slice(0, close).indexOf('%25')
    if (zone < 0) return unescapeUrlPart(host, Mode.Host) !== undefined
    return (
      unescapeUrlPart(host.slice(0, zone), Mode.Host) !== undefined &&
      unescapeUrlPart(host.slice(zone, close), Mode.Zone) !== undefined &&
      unescapeUrlPart(host.slice(close), Mode.Host) !== undefined
    )
  }
  const colon = host.lastIndexOf(':')
  if (colon >= 0 && !optionalPort(host.slice(colon))) return false
  return unescapeUrlPart(host, Mode.Host) !== undefined
}

// '' or ':' followed by digits only.
function optionalPort(port: string): boolean {
  return port === '' || /^:[0-9]*$/.test(port)
}

const HEX = /^[0-9A-Fa-f]{2}$/

/** Go's `unescape`: the unescaped text, or undefined on a bad escape or a character the mode refuses. */
function unescapeUrlPart(s: string, mode: Mode): string | undefined {
  if (!s.includes('%') && mode !== Mode.Host && mode !== Mode.Zone) return s
  const bytes: number[] = []
  const text = Buffer.from(s, 'utf8')
  for (let i = 0; i < text.length; ) {
    const b = text[i]!
    if (b === 0x25) {
      const pair = text.subarray(i + 1, i + 3).toString('latin1')
      if (!HEX.test(pair)) return undefined
      const v = Number.parseInt(pair, 16)
      // In a host only %25 may encode ASCII; in a zone, nothing a host would escape but a space.
      if (mode === Mode.Host && v < 0x80 && pair !== '25') return undefined
      if (mode === Mode.Zone && pair !== '25' && v !== 0x20 && hostRefuses(v)) return undefined
      bytes.push(v)
      i += 3
      continue
    }
    if ((mode === Mode.Host || mode === Mode.Zone) && b < 0x80 && hostRefuses(b)) return undefined
    bytes.push(b)
    i++
  }
  return Buffer.from(bytes).toString('utf8')
}

// Characters a host may hold as they are: RFC 3986's unreserved and sub-delims, and `:[]<>"`.
const HOST_CHARS = /^[A-Za-z0-9\-._~!$&'()*+,;=:[\]<>"]$/

function hostRefuses(b: number): boolean {
  return !HOST_CHARS.test(String.fromCharCode(b))
}
