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

/** Translates a glob to an anchored RE2 pattern. */
export function globToRegex(glob: string, delimiters: readonly string[]): string {
  const notDelim = delimiters.length ? `[^${delimiters.map(escapeRegex).join('')}]` : '(?s:.)'
  const chars = [...glob]
  let i = 0
  let depth = 0
  let out = ''
  while (i < chars.length) {
    const c = chars[i] as string
    i++
    switch (c) {
      case '*':
        if (chars[i] === '*') {
          while (chars[i] === '*') i++
          out += '(?s:.)*'
        } else out += `${notDelim}*`
        break
      case '?':
        out += notDelim
        break
      case '\\': {
        const next = chars[i]
        if (next === undefined) throw new BuiltinError('unexpected end of input after escape')
        out += escapeRegex(next)
        i++
        break
      }
      case '[': {
        let cls = ''
        if (chars[i] === '!') {
          cls += '^'
          i++
        }
        let closed = false
        while (i < chars.length) {
          const d = chars[i] as string
          i++
          if (d === ']') {
            closed = true
            break
          }
          cls += d === '-' ? '-' : escapeRegex(d)
        }
        if (!closed || cls === '' || cls === '^')
          throw new BuiltinError(`unexpected end of input: unclosed range in ${JSON.stringify(glob)}`)
        out += `[${cls}]`
        break
      }
      case '{':
        depth++
        out += '(?:'
        break
      case '}':
        if (depth === 0) throw new BuiltinError(`unexpected '}' in ${JSON.stringify(glob)}`)
        depth--
        out += ')'
        break
      case ',':
        out += depth > 0 ? '|' : ','
        break
      default:
        out += escapeRegex(c)
    }
  }
  if (depth !== 0) throw new BuiltinError(`unclosed '{' in ${JSON.stringify(glob)}`)
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
