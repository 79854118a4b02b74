/**
 * Go's strconv quoting, for the built-ins that print as Go does: `%q` of a string
 * (strconv.Quote) and of an integer (strconv.QuoteRune), and the `%#U` form of a rune.
 */

/** Go's `%q` of a string (strconv.Quote): printable runes kept, the rest escaped as Go escapes them. */
export function goQuote(s: string): string {
  let out = '"'
  for (const ch of s) out += ch === '"' || ch === '\\' ? `\\${ch}` : escapeRune(ch.codePointAt(0) as number)
  return `${out}"`
}

/**
 * Go's `%q` of an integer (fmt's fmtQc, strconv.QuoteRune): the rune as a character literal,
 * `'\x01'`, `'\''`; past utf8.MaxRune, negative or a surrogate, the replacement character.
 */
export function goQuoteRune(n: bigint): string {
  const c = goRune(n)
  if (c === 0x27) return "'\\''"
  if (c === 0x5c) return "'\\\\'"
  return `'${escapeRune(c)}'`
}

/** The rune fmt's `%c` and `%q` print for an integer: U+FFFD when it is not a valid rune. */
export function goRune(n: bigint): number {
  if (n < 0n || n > 0x10ffffn) return 0xfffd
  const c = Number(n)
  return c >= 0xd800 && c <= 0xdfff ? 0xfffd : c
}

function escapeRune(c: number): string {
  if (isGoPrint(c)) return String.fromCodePoint(c)
  if (c === 7) return '\\a'
  if (c === 8) return '\\b'
  if (c === 12) return '\\f'
  if (c === 10) return '\\n'
  if (c === 13) return '\\r'
  if (c === 9) return '\\t'
  if (c === 11) return '\\v'
  if (c < 0x20 || c === 0x7f || (c >= 0xd800 && c <= 0xdfff)) return `\\x${hex2(c & 0xff)}`
  if (c < 0x10000) return `\\u${c.toString(16).padStart(4, '0')}`
  return `\\U${c.toString(16).padStart(8, '0')}`
}

function hex2(n: number): string {
  return n.toString(16).padStart(2, '0')
}

const GRAPHIC = /^[\p{L}\p{M}\p{N}\p{P}\p{S}]$/u

/** unicode.IsPrint: letters, marks, numbers, punctuation, symbols and the ASCII space. */
export function isGoPrint(c: number): boolean {
  if (c === 0x20) return true
  if (c < 0x20 || c === 0x7f) return false
  if (c < 0x7f) return true
  if (c >= 0xd800 && c <= 0xdfff) return false
  return GRAPHIC.test(String.fromCodePoint(c))
}

/** Go's `%#U` of a rune: `U+0029 ')'`, or `U+0007` when it is not printable. */
export function goRuneU(c: number): string {
  const code = `U+${c.toString(16).toUpperCase().padStart(4, '0')}`
  return isGoPrint(c) ? `${code} '${String.fromCodePoint(c)}'` : code
}
