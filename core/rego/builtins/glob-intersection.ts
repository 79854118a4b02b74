/**
 * Do two "glob-style" regular expressions share a non-empty string? This is what OPA's
 * `regex.globs_match` answers (via the glob-intersection Go library). The syntax is a small regex
 * subset: `.`, character sets `[a-z]` / `[^a-z]`, `\` escapes, and the quantifiers `*` and `+`.
 */
import { BuiltinError } from './errors.js'

type Range = readonly [number, number]

/** One token: the characters it accepts (as ranges, maybe negated) and how often. */
interface Token {
  ranges: Range[]
  negated: boolean
  repeat: 'one' | 'star' | 'plus'
}

const ANY: Range[] = [[0, 0x10ffff]]

function invalid(input: string, pos: number, message: string): BuiltinError {
  return new BuiltinError(`input:${input}, pos:${pos}, ${message}: the input provided is invalid`)
}

/** Parses the glob-regex subset; throws with the library's message shape on bad input. */
export function parseGlobRegex(input: string): Token[] {
  const chars = [...input]
  const tokens: Token[] = []
  let i = 0
  while (i < chars.length) {
    const c = chars[i] as string
    i++
    if (c === '*' || c === '+') {
      const last = tokens[tokens.length - 1]
      if (last?.repeat !== 'one') throw invalid(input, i, `quantifier '${c}' with no preceding token`)
      ;(last as Token).repeat = c === '*' ? 'star' : 'plus'
    } else if (c === '.') {
      tokens.push({ ranges: ANY, negated: false, repeat: 'one' })
    } else if (c === ']') {
      throw invalid(input, i, "set-close ']' with no preceding '['")
    } else if (c === '\\') {
      const next = chars[i]
      if (next === undefined) throw invalid(input, i, "escape '\\' with no following character")
      i++
      const cp = next.codePointAt(0) as number
      tokens.push({ ranges: [[cp, cp]], negated: false, repeat: 'one' })
    } else if (c === '[') {
      const start = i
      let negated = false
      if (chars[i] === '^') {
        negated = true
        i++
      }
      const ranges: Range[] = []
      let closed = false
      while (i < chars.length) {
        let ch = chars[i] as string
        i++
        if (ch === ']') {
          closed = true
          break
        }
        if (ch === '\\') {
          ch = chars[i] ?? ''
          i++
        }
        const lo = ch.codePointAt(0) ?? 0
        if (chars[i] === '-' && chars[i + 1] !== undefined && chars[i + 1] !== ']') {
          let hiCh = chars[i + 1] as string
          i += 2
          if (hiCh === '\\') {
            hiCh = chars[i] ?? ''
            i++
          }
          const hi = hiCh.codePointAt(0) ?? 0
          if (hi < lo) throw invalid(input, i, `invalid range '${ch}-${hiCh}'`)
          ranges.push([lo, hi])
        } else {
          ranges.push([lo, lo])
        }
      }
      if (!closed) throw invalid(input, start, "set-open '[' with no following ']'")
      if (ranges.length === 0 && !negated) throw invalid(input, i, 'empty set')
      tokens.push({ ranges, negated, repeat: 'one' })
    } else {
      const cp = c.codePointAt(0) as number
      tokens.push({ ranges: [[cp, cp]], negated: false, repeat: 'one' })
    }
  }
  return tokens
}

function complement(ranges: Range[]): Range[] {
  const sorted = [...ranges].sort((a, b) => a[0] - b[0])
  const out: Range[] = []
  let next = 0
  for (const [lo, hi] of sorted) {
    if (lo > next) out.push([next, lo - 1])
    next = Math.max(next, hi + 1)
  }
  if (next <= 0x10ffff) out.push([next, 0x10ffff])
  return out
}

function overlap(a: Token, b: Token): boolean {
  const ra = a.negated ? complement(a.ranges) : a.ranges
  const rb = b.negated ? complement(b.ranges) : b.ranges
  return ra.some(([alo, ahi]) => rb.some(([blo, bhi]) => alo <= bhi && blo <= ahi))
}

/** Expands `x+` into `x x*` so the search only deals with one and star. */
function normalize(tokens: Token[]): Token[] {
  const out: Token[] = []
  for (const tk of tokens) {
    if (tk.repeat === 'plus') {
      out.push({ ...tk, repeat: 'one' }, { ...tk, repeat: 'star' })
    } else out.push(tk)
  }
  return out
}

/** True when some non-empty string matches both token lists. */
export function intersects(first: Token[], second: Token[]): boolean {
  const a = normalize(first)
  const b = normalize(second)
  const seen = new Set<string>()
  const search = (i: number, j: number, consumed: boolean): boolean => {
    const key = `${i},${j},${consumed ? 1 : 0}`
    if (seen.has(key)) return false
    seen.add(key)
    if (i === a.length && j === b.length) return consumed
    const ta = a[i]
    const tb = b[j]
    if (ta?.repeat === 'star' && search(i + 1, j, consumed)) return true
    if (tb?.repeat === 'star' && search(i, j + 1, consumed)) return true
    if (ta && tb && overlap(ta, tb)) {
      const ni = ta.repeat === 'star' ? i : i + 1
      const nj = tb.repeat === 'star' ? j : j + 1
      if (search(ni, nj, true)) return true
    }
    return false
  }
  return search(0, 0, false)
}
