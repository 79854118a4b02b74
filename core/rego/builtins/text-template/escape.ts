/** The escapers behind the `html`, `js` and `urlquery` template functions (Go's text/template). */
import { isGoPrint } from './errors.js'

/** HTMLEscapeString. */
export function htmlEscape(s: string): string {
  return s.replace(/[\0"'&<>]/g, (c) => HTML[c] as string)
}

const HTML: Readonly<Record<string, string>> = {
  '\0': '\uFFFD',
  '"': '&#34;',
  "'": '&#39;',
  '&': '&amp;',
  '<': '&lt;',
  '>': '&gt;',
}

const JS: Readonly<Record<string, string>> = {
  '\\': '\\\\',
  "'": "\\'",
  '"': '\\"',
  '<': '\\u003C',
  '>': '\\u003E',
  '&': '\\u0026',
  '=': '\\u003D',
}

/** JSEscapeString. */
export function jsEscape(s: string): string {
  let out = ''
  for (const ch of s) {
    const c = ch.codePointAt(0) as number
    const named = JS[ch]
    if (named) out += named
    else if (c < 0x20) out += `\\u00${c.toString(16).toUpperCase().padStart(2, '0')}`
    else if (c < 0x80 || isGoPrint(c)) out += ch
    else out += `\\u${c.toString(16).toUpperCase().padStart(4, '0')}`
  }
  return out
}

/** url.QueryEscape. */
export function urlQueryEscape(s: string): string {
  let out = ''
  for (const byte of Buffer.from(s, 'utf8')) {
    const ch = String.fromCharCode(byte)
    if (/[A-Za-z0-9\-_.~]/.test(ch)) out += ch
    else if (ch === ' ') out += '+'
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}
