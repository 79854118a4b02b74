/** Small helpers for building SQL text conditions the same way on SQLite and PostgreSQL. */
import { type RawBuilder, sql } from 'kysely'

/**
 * `column` starts with `prefix`, compared exactly (SQLite's LIKE ignores case and both treat
 * `%` and `_` specially, so a prefix match is written with substr instead).
 */
export function startsWith(column: string, prefix: string): RawBuilder<boolean> {
  const length = [...prefix].length
  return sql<boolean>`substr(${sql.ref(column)}, 1, ${length}) = ${prefix}`
}

/** Escapes LIKE wildcards so `text` matches literally; pair with `ESCAPE '\'`. */
export function escapeLike(text: string): string {
  return text.replace(/[\\%_]/g, (ch) => `\\${ch}`)
}
