/**
 * Targets of a multitarget request (`options.targetDialects`, tuples such as `sql+postgresql` and
 * `ucast+prisma`), and the names targets carry in messages and response keys.
 */
import { invalidParameter } from './errors.js'
import type { SqlDialect, Target } from './types.js'

const ENDPOINT_SQL_DIALECTS: ReadonlySet<string> = new Set(['postgresql', 'mysql', 'sqlserver', 'sqlite'])

/**
 * Parses `target+dialect` tuples in order. Unknown UCAST variants are accepted and get the minimal
 * constraints, as the reference does.
 * @throws CompileFailure 400 `multi-target request: …` for a tuple without `+`, an unknown SQL dialect
 *   (`unsupported variant for sql: x`) or an unknown target (`unknown target/dialect combination: t/d`).
 */
export function parseTargetDialects(tuples: readonly string[]): Target[] {
  return tuples.map((tuple) => {
    const plus = tuple.indexOf('+')
    if (plus < 0)
      throw invalidParameter(`multi-target request: invalid target/dialect "${tuple}" (want target+dialect)`)
    const kind = tuple.slice(0, plus)
    const variant = tuple.slice(plus + 1)
    if (kind === 'sql') {
      const dialect = variant.toLowerCase()
      if (!ENDPOINT_SQL_DIALECTS.has(dialect)) {
        throw invalidParameter(`multi-target request: unsupported variant for sql: ${variant}`)
      }
      return { kind: 'sql', dialect: dialect as SqlDialect, variant }
    }
    if (kind === 'ucast') return { kind: 'ucast', variant }
    throw invalidParameter(`multi-target request: unknown target/dialect combination: ${kind}/${variant}`)
  })
}

/** The key a target's answer has in a multitarget `result` (`ucast`, `postgresql`, …). */
export function resultKey(target: Target): 'ucast' | SqlDialect {
  return target.kind === 'ucast' ? 'ucast' : target.dialect
}
