/**
 * The error a template raises while parsing or executing, with Go's text/template wording
 * (`template: template:1: unexpected EOF`, `template: template:1:2: executing "template" at <.x>: …`).
 * template.ts turns it into the built-in error OPA reports.
 */
export class TemplateError extends Error {
  override readonly name = 'TemplateError'
}

/** Go's `%q` of a string (strconv.Quote): printable runes kept, the rest escaped as Go escapes them. */
export function goQuote(s: string): string {
  let out = '"'
  for (const ch of s) {
    const c = ch.codePointAt(0) as number
    if (ch === '"' || ch === '\\') out += `\\${ch}`
    else if (isGoPrint(c)) out += ch
    else if (c === 7) out += '\\a'
    else if (c === 8) out += '\\b'
    else if (c === 12) out += '\\f'
    else if (c === 10) out += '\\n'
    else if (c === 13) out += '\\r'
    else if (c === 9) out += '\\t'
    else if (c === 11) out += '\\v'
    else if (c < 0x20 || c === 0x7f || (c >= 0xd800 && c <= 0xdfff)) out += `\\x${hex2(c & 0xff)}`
    else if (c < 0x10000) out += `\\u${c.toString(16).padStart(4, '0')}`
    else out += `\\U${c.toString(16).padStart(8, '0')}`
  }
  return `${out}"`
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
