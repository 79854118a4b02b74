/**
 * GraphQL lexer with the token kinds, positions and quirks of gqlparser (which OPA uses), so error
 * messages match: strings are positioned after their opening quote, failures yield `<Invalid>`.
 */

/** Token kinds; punctuators are their own text. */
export type TokenKind =
  | 'Name'
  | 'Int'
  | 'Float'
  | 'String'
  | 'BlockString'
  | '<EOF>'
  | '<Invalid>'
  | '!'
  | '$'
  | '&'
  | '('
  | ')'
  | '...'
  | ':'
  | '='
  | '@'
  | '['
  | ']'
  | '{'
  | '|'
  | '}'

/** A token with its 1-based position. */
export interface Token {
  kind: TokenKind
  value: string
  line: number
  column: number
}

/** gqlparser's `Token.String()`: kind, then the quoted value when there is one. */
export function describeToken(t: Token): string {
  return t.value !== '' && ['Name', 'Int', 'Float', 'String', 'BlockString'].includes(t.kind)
    ? `${t.kind} ${JSON.stringify(t.value)}`
    : t.kind
}

const PUNCT = new Set(['!', '$', '&', '(', ')', ':', '=', '@', '[', ']', '{', '|', '}'])

/** Splits GraphQL source into tokens (ending with `<EOF>` or `<Invalid>`). */
export function tokenize(src: string): Token[] {
  const tokens: Token[] = []
  let i = 0
  let line = 1
  let lineStart = 0
  const at = (start: number) => ({ line, column: start - lineStart + 1 })
  const newline = (pos: number) => {
    line++
    lineStart = pos
  }
  const invalid = (pos: number) => {
    tokens.push({ kind: '<Invalid>', value: '', ...at(pos) })
    return tokens
  }
  while (i < src.length) {
    const c = src[i] as string
    if (c === '\n') {
      i++
      newline(i)
      continue
    }
    if (c === '\r') {
      i += src[i + 1] === '\n' ? 2 : 1
      newline(i)
      continue
    }
    if (c === ' ' || c === '\t' || c === ',' || c === '\ufeff') {
      i++
      continue
    }
    if (c === '#') {
      while (i < src.length && src[i] !== '\n' && src[i] !== '\r') i++
      continue
    }
    const start = i
    if (src.startsWith('...', i)) {
      tokens.push({ kind: '...', value: '', ...at(start) })
      i += 3
      continue
    }
    if (PUNCT.has(c)) {
      tokens.push({ kind: c as TokenKind, value: '', ...at(start) })
      i++
      continue
    }
    if (/[_A-Za-z]/.test(c)) {
      const m = /^[_0-9A-Za-z]+/.exec(src.slice(i)) as RegExpExecArray
      tokens.push({ kind: 'Name', value: m[0], ...at(start) })
      i += m[0].length
      continue
    }
    if (c === '-' || /[0-9]/.test(c)) {
      const m = /^-?(0|[1-9][0-9]*)(\.[0-9]+)?([eE][+-]?[0-9]+)?/.exec(src.slice(i))
      if (!m || /[._A-Za-z0-9]/.test(src[i + m[0].length] ?? '')) return invalid(start)
      tokens.push({ kind: m[2] || m[3] ? 'Float' : 'Int', value: m[0], ...at(start) })
      i += m[0].length
      continue
    }
    if (src.startsWith('"""', i)) {
      const pos = at(start + 3)
      let j = i + 3
      let raw = ''
      for (;;) {
        if (j >= src.length) return invalid(j)
        if (src.startsWith('"""', j)) break
        if (src.startsWith('\\"""', j)) {
          raw += '"""'
          j += 4
          continue
        }
        const ch = src[j] as string
        if (ch === '\n' || ch === '\r') {
          const step = ch === '\r' && src[j + 1] === '\n' ? 2 : 1
          raw += '\n'
          j += step
          newline(j)
          continue
        }
        raw += ch
        j++
      }
      tokens.push({ kind: 'BlockString', value: blockStringValue(raw), ...pos })
      i = j + 3
      continue
    }
    if (c === '"') {
      const pos = at(start + 1)
      let j = i + 1
      let value = ''
      for (;;) {
        const ch = src[j]
        if (ch === undefined || ch === '\n' || ch === '\r') return invalid(j)
        if (ch === '"') break
        if (ch === '\\') {
          const e = src[j + 1]
          const simple: Record<string, string> = {
            '"': '"',
            '\\': '\\',
            '/': '/',
            b: '\b',
            f: '\f',
            n: '\n',
            r: '\r',
            t: '\t',
          }
          if (e !== undefined && simple[e] !== undefined) {
            value += simple[e]
            j += 2
            continue
          }
          const u = /^u([0-9a-fA-F]{4})/.exec(src.slice(j + 1))
          if (!u) return invalid(j)
          value += String.fromCharCode(Number.parseInt(u[1] as string, 16))
          j += 6
          continue
        }
        value += ch
        j++
      }
      tokens.push({ kind: 'String', value, ...pos })
      i = j + 1
      continue
    }
    return invalid(start)
  }
  tokens.push({ kind: '<EOF>', value: '', ...at(i) })
  return tokens
}

/** The value of a block string: common indentation removed, blank first/last lines dropped. */
export function blockStringValue(raw: string): string {
  const lines = raw.split('\n')
  let common: number | undefined
  for (let k = 1; k < lines.length; k++) {
    const l = lines[k] as string
    const indent = l.length - l.replace(/^[ \t]+/, '').length
    if (indent < l.length && (common === undefined || indent < common)) common = indent
  }
  if (common !== undefined)
    for (let k = 1; k < lines.length; k++) lines[k] = (lines[k] as string).slice(common)
  while (lines.length && /^[ \t]*$/.test(lines[0] as string)) lines.shift()
  while (lines.length && /^[ \t]*$/.test(lines[lines.length - 1] as string)) lines.pop()
  return lines.join('\n')
}
