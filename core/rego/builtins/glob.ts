/**
 * Glob matching with gobwas/glob semantics, as OPA's glob.match: `*` stays within delimiters, `**`
 * crosses them, `?` is one non-delimiter character, `[a-c]` / `[!a-c]` are classes and `{a,b}`
 * alternatives. Patterns compile to RE2 expressions (cached).
 */
import type { RE2JS } from 're2js'
import { t } from '../types/index.js'
import { defineBuiltin } from './define.js'
import { BuiltinError } from './errors.js'
import { operandTypeError, stringListOperand, stringOperand } from './operands.js'
import { compileRegex } from './regex-cache.js'

const SPECIAL = /[*?\\[\]{}]/g

function escapeRegex(c: string): string {
  return c.replace(/[\\.+*?()|[\]{}^$-]/g, '\\$&')
}

/** A code point as an RE2 escape, safe anywhere in a class. */
const hex = (c: string) => `\\x{${(c.codePointAt(0) ?? 0).toString(16)}}`

// gobwas/glob's lexer: plain text runs up to one of these (and, between braces, `}` and `,`).
const TEXT_BREAKERS = new Set(['*', '?', '[', '{'])
const TERMS_BREAKERS = new Set([...TEXT_BREAKERS, '}', ','])
const CLASS_BREAKERS = new Set([']'])

/**
 * Translates a glob to an anchored RE2 pattern, reading it as gobwas/glob's lexer does: `{a,b}`
 * alternatives (`,` and `}` are plain text outside them), `[abc]` sets and `[a-c]` ranges (one
 * or the other, `!` negates), backslash escapes in text and sets. Malformed patterns fail with
 * the library's `glob: syntax error at N: reason`, N counting the characters read so far.
 */
export function globToRegex(glob: string, delimiters: readonly string[]): string {
  const notDelim = delimiters.length ? `[^${delimiters.map(escapeRegex).join('')}]` : '(?s:.)'
  const chars = [...glob]
  let i = 0
  const fail = (reason: string): never => {
    throw new BuiltinError(`glob: syntax error at ${i}: ${reason}`)
  }

  // Text up to a breaker; a backslash takes the next character as it is.
  const readText = (breakers: ReadonlySet<string>, inClass: boolean): string => {
    let data = ''
    let escaped = false
    while (i < chars.length) {
      const r = chars[i++] as string
      if (!escaped) {
        if (r === '\\') {
          escaped = true
          continue
        }
        if (breakers.has(r)) {
          i--
          break
        }
      }
      escaped = false
      data += r
    }
    // In a class the missing `]` is reported instead.
    if (escaped && !inClass) fail('trailing backslash')
    return data
  }

  // After `[`: `!`, then either `lo-hi` or a set of characters, then `]`.
  const readClass = (): string => {
    let not = false
    let lo: string | undefined
    let hi: string | undefined
    let set = ''
    let wantHi = false
    let wantClose = false
    for (;;) {
      if (i >= chars.length) fail('unexpected end of input')
      const r = chars[i++] as string
      if (wantClose) {
        if (r !== ']') fail('expected close range character')
        break
      }
      if (wantHi) {
        hi = r
        wantHi = false
        wantClose = true
      } else if (!not && r === '!') {
        not = true
      } else if (chars[i] === '-') {
        lo = r
        i++
        wantHi = true
      } else {
        i--
        set = readText(CLASS_BREAKERS, true)
        wantClose = true
      }
    }
    if (lo !== undefined && hi !== undefined) {
      if ((hi.codePointAt(0) ?? 0) < (lo.codePointAt(0) ?? 0)) fail('range hi character is less than lo')
      return `[${not ? '^' : ''}${hex(lo)}-${hex(hi)}]`
    }
    if (set === '') fail('could not parse range')
    return `[${not ? '^' : ''}${[...set].map(hex).join('')}]`
  }

  let depth = 0
  let out = ''
  while (i < chars.length) {
    const c = chars[i++] as string
    if (c === '{') {
      depth++
      out += '(?:'
    } else if (c === ',' && depth > 0) out += '|'
    else if (c === '}' && depth > 0) {
      depth--
      out += ')'
    } else if (c === '[') out += readClass()
    else if (c === '?') out += notDelim
    else if (c === '*') {
      if (chars[i] === '*') {
        i++
        out += '(?s:.)*'
      } else out += `${notDelim}*`
    } else {
      i--
      out += escapeRegex(readText(depth > 0 ? TERMS_BREAKERS : TEXT_BREAKERS, false))
    }
  }
  if (depth > 0) fail('unclosed `{`')
  return `^${out}$`
}

const globCache = new Map<string, RE2JS>()

export const globMatch = defineBuiltin({
  name: 'glob.match',
  category: 'glob',
  description:
    'Parses and matches strings against the glob notation. Not to be confused with `regex.globs_match`. Delimiters default to `["."]` when the array is empty; `null` means none.',
  args: [
    t.named('pattern', t.string, 'glob pattern'),
    t.named('delimiters', t.anyOf(t.null, t.array(t.string)), 'glob pattern delimiters, e.g. `[":", "."]`'),
    t.named('match', t.string, 'string to match against `pattern`'),
  ],
  result: t.named(
    'result',
    t.boolean,
    'true if `match` can be found in `pattern` which is separated by `delimiters`',
  ),
  impl: (_ctx, [p, d, m]) => {
    const pattern = stringOperand(p, 1)
    let delims: string[]
    if (d === null) delims = []
    else {
      if (!Array.isArray(d)) throw operandTypeError(2, d, 'array', 'null')
      delims = stringListOperand(d, 2)
      if (delims.length === 0) delims = ['.']
    }
    const value = stringOperand(m, 3)
    const key = `${JSON.stringify(delims)}\u0000${pattern}`
    let re = globCache.get(key)
    if (!re) {
      re = compileRegex(
        globToRegex(
          pattern,
          delims.flatMap((x) => [...x]),
        ),
      )
      if (globCache.size > 256) globCache.clear()
      globCache.set(key, re)
    }
    return re.test(value)
  },
})

export const globQuoteMeta = defineBuiltin({
  name: 'glob.quote_meta',
  category: 'glob',
  description:
    'Returns a string which represents a version of the pattern where all asterisks have been escaped.',
  args: [t.named('pattern', t.string, 'glob pattern')],
  result: t.named('output', t.string, 'the escaped string of `pattern`'),
  impl: (_ctx, [p]) => stringOperand(p, 1).replace(SPECIAL, '\\$&'),
})

/** The glob built-ins. */
export const GLOB = [globMatch, globQuoteMeta] as const
