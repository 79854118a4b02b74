/**
 * "Did you mean" hints: an expression that failed during partial evaluation because it read
 * `input.<table>…` for a table that is not unknown is probably a typo of one that is
 * (`input.fruit.cost undefined, did you mean input.fruits.cost?`).
 */
import type { Expr, RefTerm, Term } from '../core/rego/syntax/ast.js'
import { refToString } from './print.js'

/** One hint of the response's `hints` list. */
export interface Hint {
  message: string
  location?: { file: string; row: number; col: number }
}

const MAX_DISTANCE = 3

/**
 * Hints for the failed expressions, at most one per distinct ref, in the order the expressions failed.
 * Candidates are the table names of the unknowns; the closest within 3 edits win (all of them on a tie).
 */
export function hintsFor(failed: readonly Expr[], unknowns: readonly RefTerm[]): Hint[] {
  const candidates: string[] = []
  for (const u of unknowns) {
    const table = u.value[1]
    if (table?.type === 'string' && !candidates.includes(table.value)) candidates.push(table.value)
  }
  const hints: Hint[] = []
  const seen = new Set<string>()
  for (const expr of failed) {
    if (!Array.isArray(expr.terms)) continue
    let ref: Term[] | undefined
    for (const operand of expr.terms.slice(1)) {
      if (operand.type === 'ref' && operand.value[0]?.type === 'var' && operand.value[0].value === 'input') {
        ref = operand.value
      }
    }
    const table = ref?.[1]
    if (!ref || table?.type !== 'string') continue
    const text = refToString(ref)
    if (seen.has(text) || candidates.includes(table.value)) continue
    const closest = closestStrings(table.value, candidates)
    if (closest.length === 0) continue
    const proposals = closest.map((name) =>
      refToString([ref[0]!, { type: 'string', value: name }, ...ref.slice(2)]),
    )
    const message =
      proposals.length === 1
        ? `${text} undefined, did you mean ${proposals[0]}?`
        : `${text} undefined, did you mean any of [${proposals.join(' ')}]?`
    const hint: Hint = { message }
    if (expr.location)
      hint.location = { file: expr.location.file, row: expr.location.row, col: expr.location.col }
    hints.push(hint)
    seen.add(text)
  }
  return hints
}

/** Candidates at the smallest edit distance from `word`, if that is at most 3, sorted. */
export function closestStrings(word: string, candidates: readonly string[]): string[] {
  let best = MAX_DISTANCE + 1
  let found: string[] = []
  for (const c of candidates) {
    const d = levenshtein(word, c)
    if (d < best) {
      best = d
      found = [c]
    } else if (d === best) {
      found.push(c)
    }
  }
  return best <= MAX_DISTANCE ? found.sort() : []
}

/** Edit distance (insertions, deletions, substitutions) between two strings. */
export function levenshtein(a: string, b: string): number {
  let prev = Array.from({ length: b.length + 1 }, (_, j) => j)
  for (let i = 1; i <= a.length; i++) {
    const row = [i]
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1
      row.push(Math.min(prev[j]! + 1, row[j - 1]! + 1, prev[j - 1]! + cost))
    }
    prev = row
  }
  return prev[b.length]!
}
