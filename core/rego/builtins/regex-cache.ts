/**
 * Compiled RE2 patterns (re2js: Go's regexp semantics, linear time, no backtracking), cached by
 * pattern text as OPA caches them, with Go's "find all" iteration rules.
 */
import type { RE2JS } from 're2js'
import { BuiltinError } from './errors.js'
import { re2 } from './re2.js'

const MAX_CACHED = 256
const cache = new Map<string, RE2JS>()

/** Compiles `pattern` (cached); throws a BuiltinError with Go's `error parsing regexp: ...` text. */
export function compileRegex(pattern: string): RE2JS {
  const hit = cache.get(pattern)
  if (hit) return hit
  let re: RE2JS
  try {
    re = re2().compile(pattern)
  } catch (err) {
    throw new BuiltinError(err instanceof Error ? err.message : String(err))
  }
  if (cache.size >= MAX_CACHED) cache.delete(cache.keys().next().value as string)
  cache.set(pattern, re)
  return re
}

/** One match: overall span plus each group's span (-1 when the group did not take part). */
export interface RegexMatch {
  start: number
  end: number
  groups: Array<[number, number]>
}

/**
 * All matches as Go's `FindAll*` returns them: at most `n` (all when negative), skipping an empty
 * match right after the previous match.
 */
export function findAll(re: RE2JS, input: string, n: number): RegexMatch[] {
  const out: RegexMatch[] = []
  if (n === 0) return out
  const m = re.matcher(input)
  const groups = m.groupCount()
  let pos = 0
  let prevEnd = -1
  while ((n < 0 || out.length < n) && pos <= input.length) {
    if (!m.find(pos)) break
    const start = m.start()
    const end = m.end()
    let accept = true
    if (end === start) {
      if (start === prevEnd) accept = false
      const cp = input.codePointAt(end)
      pos = end + (cp === undefined ? 1 : cp > 0xffff ? 2 : 1)
    } else {
      pos = end
    }
    prevEnd = end
    if (accept) {
      const spans: Array<[number, number]> = []
      for (let g = 1; g <= groups; g++) spans.push([m.start(g), m.end(g)])
      out.push({ start, end, groups: spans })
    }
  }
  return out
}
