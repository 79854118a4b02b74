/**
 * Go's `filepath.Match` for slash paths: `*` matches any run of non-`/` characters, `?` one
 * non-`/` character, `[...]` a class (`^` or `!` negates, `a-z` ranges), `\` escapes. OPA applies
 * it to `exclude_files` during verification and regent to `--ignore`, so the two agree with OPA.
 */

/**
 * Whether `name` matches the whole of `pattern`. A malformed pattern matches nothing (Go returns
 * `ErrBadPattern`, which OPA treats as no match).
 * @example globMatch('*.json', 'a.json') // true;  globMatch('*.json', 'x/a.json') // false
 */
export function globMatch(pattern: string, name: string): boolean {
  const re = compile(pattern)
  return re?.test(name) ?? false
}

const cache = new Map<string, RegExp | undefined>()

function compile(pattern: string): RegExp | undefined {
  if (cache.has(pattern)) return cache.get(pattern)
  let source = '^'
  let ok = true
  for (let i = 0; i < pattern.length && ok; i++) {
    const ch = pattern[i]!
    if (ch === '*') source += '[^/]*'
    else if (ch === '?') source += '[^/]'
    else if (ch === '\\') {
      const next = pattern[++i]
      if (next === undefined) ok = false
      else source += escapeRegex(next)
    } else if (ch === '[') {
      const end = pattern.indexOf(']', i + 2)
      if (end < 0) ok = false
      else {
        let body = pattern.slice(i + 1, end)
        const negate = body.startsWith('^') || body.startsWith('!')
        if (negate) body = body.slice(1)
        const cls = body.replace(/\\(.)/g, '$1').replace(/[\]\\^]/g, '\\$&')
        source += negate ? `[^/${cls}]` : `[${cls}]`
        i = end
      }
    } else source += escapeRegex(ch)
  }
  let re: RegExp | undefined
  try {
    re = ok ? new RegExp(`${source}$`, 'u') : undefined
  } catch {
    re = undefined
  }
  if (cache.size > 1000) cache.clear()
  cache.set(pattern, re)
  return re
}

function escapeRegex(ch: string): string {
  return ch.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&')
}
