/**
 * `regent eval -p -f source`: the residual queries and support modules of a partial evaluation
 * as Rego source, in the layout of `opa eval -f source` (`# Query N` blocks, then `# Module N`
 * blocks), so the output can be pasted into a policy file or diffed as text.
 */
import type { Body } from '../../core/rego/syntax/ast.js'
import { queryExprText } from './eval-partial.js'

/** Each residual query (one expression a line) and each formatted support module, numbered from 1. */
export function partialSource(queries: readonly Body[], supportModules: readonly string[]): string {
  const out: string[] = []
  for (const [i, query] of queries.entries()) {
    // An empty residual query means "always true"; OPA's formatter prints the body as `true`.
    const lines = query.length === 0 ? ['true'] : query.map(queryExprText)
    out.push(`# Query ${i + 1}\n${lines.join('\n')}\n\n`)
  }
  for (const [i, text] of supportModules.entries()) {
    out.push(`# Module ${i + 1}\n${text.endsWith('\n') ? text : `${text}\n`}`)
  }
  return out.join('')
}
