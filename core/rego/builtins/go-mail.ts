/**
 * Whether Go's `net/mail.ParseAddress` accepts a string: the check behind gojsonschema's `email` and
 * `idn-email` formats, which OPA's `json.match_schema` runs. Written from RFC 5322 as Go applies
 * it: one mailbox, either an addr-spec (`local@domain`, optionally followed by a parenthesised
 * display name) or a display name and an angle-addr (`Name <local@domain>`), or a group with one
 * member (`team: a@b;`). Go's leniencies are kept: a display name's words may hold dots, comments
 * and spaces may surround the parts, non-ASCII text counts as atom text, a domain may be a
 * bracketed IP literal.
 */
import { parseIP } from './net-ip.js'

/** True when Go's `mail.ParseAddress(s)` returns no error. */
export function isGoMailAddress(s: string): boolean {
  try {
    const p = new AddressParser(s)
    const count = p.address(true)
    if (!p.skipComments()) return false
    return p.empty() && count === 1
  } catch (err) {
    if (err instanceof Refused) return false
    throw err
  }
}

class Refused extends Error {}

const SPECIALS = '()<>[]:;@\\,"'

// atext (RFC 5322 3.2.3) with `.` when `dot`; any non-ASCII character counts, as in Go.
function isAtext(c: string, dot: boolean): boolean {
  if (c === '.') return dot
  return !SPECIALS.includes(c) && isVchar(c)
}

function isVchar(c: string): boolean {
  const code = c.codePointAt(0)!
  return (code >= 0x21 && code <= 0x7e) || code >= 0x80
}

const isWsp = (c: string) => c === ' ' || c === '\t'

// An RFC 2047 encoded word whose text decodes but whose character set Go cannot convert without a
// CharsetReader: the one encoded-word problem net/mail reports (others leave the word as it is).
const ENCODED_WORD = /^=\?([^?]+)\?([bBqQ])\?([^?]*)\?=$/
const KNOWN_CHARSETS = new Set(['utf-8', 'iso-8859-1', 'us-ascii'])
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/
const Q_TEXT = /^(?:[ -<>-~\t\r\n]|=[0-9A-Fa-f]{2})*$/

function refusesEncodedWord(word: string): boolean {
  const m = ENCODED_WORD.exec(word)
  if (m === null || KNOWN_CHARSETS.has(m[1]!.toLowerCase())) return false
  return (m[2] === 'b' || m[2] === 'B' ? BASE64 : Q_TEXT).test(m[3]!)
}

class AddressParser {
  #s: string

  constructor(s: string) {
    this.#s = s
  }

  empty(): boolean {
    return this.#s.length === 0
  }

  #peek(): string {
    return this.#s[0] ?? ''
  }

  #consume(c: string): boolean {
    if (this.#peek() !== c) return false
    this.#s = this.#s.slice(1)
    return true
  }

  #skipSpace(): void {
    this.#s = this.#s.replace(/^[ \t]+/, '')
  }

  /** Spaces and parenthesised comments; false when a comment is not closed. */
  skipComments(): boolean {
    this.#skipSpace()
    while (this.#consume('(')) {
      if (this.#comment() === undefined) return false
      this.#skipSpace()
    }
    return true
  }

  // After '(': the comment's text up to its matching ')', or undefined when it is not closed.
  #comment(): string | undefined {
    let depth = 1
    let text = ''
    while (this.#s.length > 0 && depth > 0) {
      if (this.#peek() === '\\' && this.#s.length > 1) this.#s = this.#s.slice(1)
      else if (this.#peek() === '(') depth++
      else if (this.#peek() === ')') depth--
      if (depth > 0) text += this.#s[0]
      this.#s = this.#s.slice(1)
    }
    return depth === 0 ? text : undefined
  }

  /** One address (or a group, when `groups`); resolves to how many mailboxes it held. */
  address(groups: boolean): number {
    this.#skipSpace()
    if (this.empty()) throw new Refused('no address')
    // An addr-spec is the stricter form: tried first, the text restored when it does not parse.
    if (this.#tryAddrSpec()) {
      this.#skipSpace()
      if (this.#peek() === '(') this.#displayNameComment()
      return 1
    }
    if (this.#peek() !== '<') this.#phrase()
    this.#skipSpace()
    if (groups && this.#consume(':')) return this.#groupList()
    if (!this.#consume('<')) throw new Refused('no angle-addr')
    this.#addrSpec()
    if (!this.#consume('>')) throw new Refused('unclosed angle-addr')
    return 1
  }

  #groupList(): number {
    let count = 0
    this.#skipSpace()
    if (this.#consume(';')) {
      if (!this.skipComments()) throw new Refused('misformatted comment')
      return 0
    }
    for (;;) {
      this.#skipSpace()
      count += this.address(false)
      if (!this.skipComments()) throw new Refused('misformatted comment')
      if (this.#consume(';')) {
        if (!this.skipComments()) throw new Refused('misformatted comment')
        return count
      }
      if (!this.#consume(',')) throw new Refused('expected comma')
    }
  }

  // An addr-spec if one parses here; else the text is left as it was.
  #tryAddrSpec(): boolean {
    const saved = this.#s
    try {
      this.#addrSpec()
      return true
    } catch (err) {
      if (!(err instanceof Refused)) throw err
      this.#s = saved
      return false
    }
  }

  #addrSpec(): void {
    this.#skipSpace()
    if (this.empty()) throw new Refused('no addr-spec')
    if (this.#peek() === '"') {
      if (this.#quotedString() === '') throw new Refused('empty quoted-string in addr-spec')
    } else this.#atom(true, false)
    if (!this.#consume('@')) throw new Refused('missing @ in addr-spec')
    this.#skipSpace()
    if (this.empty()) throw new Refused('no domain in addr-spec')
    if (this.#peek() === '[') this.#domainLiteral()
    else this.#atom(true, false)
  }

  #atom(dot: boolean, permissive: boolean): string {
    let i = 0
    for (const c of this.#s) {
      if (!isAtext(c, dot)) break
      i += c.length
    }
    if (i === 0) throw new Refused('invalid string')
    const atom = this.#s.slice(0, i)
    this.#s = this.#s.slice(i)
    if (!permissive && (atom.startsWith('.') || atom.includes('..') || atom.endsWith('.')))
      throw new Refused('misplaced dot in atom')
    return atom
  }

  // After the opening '"' (still in the text): the unquoted content.
  #quotedString(): string {
    let out = ''
    let escaped = false
    let i = 1
    for (;;) {
      if (i >= this.#s.length) throw new Refused('unclosed quoted-string')
      const c = String.fromCodePoint(this.#s.codePointAt(i)!)
      if (escaped) {
        if (!isVchar(c) && !isWsp(c)) throw new Refused('bad character in quoted-string')
        out += c
        escaped = false
      } else if ((isVchar(c) && c !== '"' && c !== '\\') || isWsp(c)) out += c
      else if (c === '"') break
      else if (c === '\\') escaped = true
      else throw new Refused('bad character in quoted-string')
      i += c.length
    }
    this.#s = this.#s.slice(i + 1)
    return out
  }

  #domainLiteral(): void {
    this.#consume('[')
    let text = ''
    for (;;) {
      if (this.empty()) throw new Refused('unclosed domain-literal')
      if (this.#peek() === ']') break
      const c = String.fromCodePoint(this.#s.codePointAt(0)!)
      if (c === '[' || c === '\\' || !isVchar(c)) throw new Refused('bad character in domain-literal')
      text += c
      this.#s = this.#s.slice(c.length)
    }
    this.#consume(']')
    if (parseIP(text) === undefined) throw new Refused('invalid IP address in domain-literal')
  }

  // A display name: one or more words (atoms, dots allowed, or quoted strings), with comments
  // between words; parsing stops at the first thing that is not a word.
  #phrase(): void {
    let words = 0
    for (;;) {
      if (words > 0 && !this.skipComments()) throw new Refused('misformatted comment')
      this.#skipSpace()
      if (this.empty()) break
      try {
        if (this.#peek() === '"') this.#quotedString()
        else if (refusesEncodedWord(this.#atom(true, true))) break
      } catch (err) {
        if (!(err instanceof Refused)) throw err
        break
      }
      words++
    }
    if (words === 0) throw new Refused('missing word in phrase')
  }

  // `(Name)` after an addr-spec: the comment must close, and no word in it may be an encoded word
  // in a character set Go cannot decode.
  #displayNameComment(): void {
    this.#consume('(')
    const text = this.#comment()
    if (text === undefined) throw new Refused('misformatted comment')
    if (text.split(/[ \t]+/).some(refusesEncodedWord)) throw new Refused('unknown charset')
  }
}
