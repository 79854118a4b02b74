/**
 * Strings as Go's `encoding/json` reads and writes them, for hashes that must match OPA's.
 * Reading: invalid UTF-8 bytes become U+FFFD one byte at a time (`utf8.DecodeRune`), a surrogate
 * escape that is not a valid pair becomes U+FFFD. Writing (`SetEscapeHTML(false)`, Go >= 1.22):
 * `\"` `\\` `\n` `\r` `\t` `\b` `\f`, other control characters as `\u00xx`, U+2028 and U+2029
 * escaped, everything else (including `<`, `>`, `&` and DEL) as raw UTF-8.
 */

const REPLACEMENT = 0xfffd
const SHORT_ESCAPES: Record<number, string> = {
  34: '\\"',
  92: '\\\\',
  10: '\\n',
  13: '\\r',
  9: '\\t',
  8: '\\b',
  12: '\\f',
}
const NEEDS_ESCAPE = /["\\\u0000-\u001f\u2028\u2029\ud800-\udfff]/

/**
 * `s` as a Go-encoded JSON string literal, quotes included.
 * @example goQuote('a\u2028<b>') // '"a\\u2028<b>"'
 */
export function goQuote(s: string): string {
  if (!NEEDS_ESCAPE.test(s)) return `"${s}"`
  let out = '"'
  for (const ch of s) {
    const cp = ch.codePointAt(0)!
    const short = SHORT_ESCAPES[cp]
    if (short !== undefined) out += short
    else if (cp < 0x20 || cp === 0x2028 || cp === 0x2029) out += `\\u${cp.toString(16).padStart(4, '0')}`
    else if (cp >= 0xd800 && cp <= 0xdfff) out += '\ufffd'
    else out += ch
  }
  return `${out}"`
}

/**
 * The text of a JSON string body `raw[start, end)` (between the quotes), decoded as Go does;
 * undefined for a malformed escape (the caller reports the position).
 */
export function decodeGoStringBody(raw: Uint8Array, start: number, end: number): string | undefined {
  const codePoints: number[] = []
  let i = start
  while (i < end) {
    const b = raw[i]!
    if (b === 0x5c) {
      const esc = raw[i + 1]
      const simple = esc === undefined ? undefined : SIMPLE_UNESCAPES[esc]
      if (simple !== undefined) {
        codePoints.push(simple)
        i += 2
        continue
      }
      if (esc !== 0x75) return undefined
      const unit = hex4(raw, i + 2, end)
      if (unit === undefined) return undefined
      i += 6
      if (unit >= 0xd800 && unit <= 0xdfff) {
        const low = raw[i] === 0x5c && raw[i + 1] === 0x75 ? hex4(raw, i + 2, end) : undefined
        if (unit <= 0xdbff && low !== undefined && low >= 0xdc00 && low <= 0xdfff) {
          codePoints.push(0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00))
          i += 6
        } else codePoints.push(REPLACEMENT)
        continue
      }
      codePoints.push(unit)
      continue
    }
    if (b < 0x80) {
      codePoints.push(b)
      i++
      continue
    }
    const [cp, size] = decodeRune(raw, i, end)
    codePoints.push(cp)
    i += size
  }
  let out = ''
  for (let k = 0; k < codePoints.length; k += 4096)
    out += String.fromCodePoint(...codePoints.slice(k, k + 4096))
  return out
}

const SIMPLE_UNESCAPES: Record<number, number> = {
  34: 0x22,
  92: 0x5c,
  47: 0x2f,
  98: 0x08,
  102: 0x0c,
  110: 0x0a,
  114: 0x0d,
  116: 0x09,
}

function hex4(raw: Uint8Array, at: number, end: number): number | undefined {
  if (at + 4 > end) return undefined
  let value = 0
  for (let k = at; k < at + 4; k++) {
    const c = raw[k]!
    const digit =
      c >= 0x30 && c <= 0x39
        ? c - 0x30
        : c >= 0x61 && c <= 0x66
          ? c - 0x57
          : c >= 0x41 && c <= 0x46
            ? c - 0x37
            : -1
    if (digit < 0) return undefined
    value = value * 16 + digit
  }
  return value
}

/** Go's `utf8.DecodeRune`: a code point and its length, or U+FFFD and 1 for an invalid byte. */
function decodeRune(raw: Uint8Array, i: number, end: number): [number, number] {
  const b0 = raw[i]!
  const cont = (k: number, lo = 0x80, hi = 0xbf) => {
    const b = i + k < end ? raw[i + k]! : -1
    return b >= lo && b <= hi ? b & 0x3f : -1
  }
  if (b0 >= 0xc2 && b0 <= 0xdf) {
    const c1 = cont(1)
    return c1 < 0 ? [REPLACEMENT, 1] : [((b0 & 0x1f) << 6) | c1, 2]
  }
  if (b0 >= 0xe0 && b0 <= 0xef) {
    const c1 = cont(1, b0 === 0xe0 ? 0xa0 : 0x80, b0 === 0xed ? 0x9f : 0xbf)
    const c2 = c1 < 0 ? -1 : cont(2)
    return c2 < 0 ? [REPLACEMENT, 1] : [((b0 & 0x0f) << 12) | (c1 << 6) | c2, 3]
  }
  if (b0 >= 0xf0 && b0 <= 0xf4) {
    const c1 = cont(1, b0 === 0xf0 ? 0x90 : 0x80, b0 === 0xf4 ? 0x8f : 0xbf)
    const c2 = c1 < 0 ? -1 : cont(2)
    const c3 = c2 < 0 ? -1 : cont(3)
    return c3 < 0 ? [REPLACEMENT, 1] : [((b0 & 0x07) << 18) | (c1 << 12) | (c2 << 6) | c3, 4]
  }
  return [REPLACEMENT, 1]
}
