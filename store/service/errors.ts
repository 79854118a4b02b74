/** Errors the store raises that callers map to API answers (the store knows nothing of HTTP). */

/** A row with the same key (or another unique column) already exists. */
export class AlreadyExistsError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'AlreadyExistsError'
  }
}

/** True for a unique or primary-key violation from SQLite or PostgreSQL. */
export function isUniqueViolation(err: unknown): boolean {
  const code = (err as { code?: unknown } | null)?.code
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE' || code === 'SQLITE_CONSTRAINT_PRIMARYKEY'
}

/**
 * The column a unique violation is about, when the driver says: PostgreSQL's detail
 * `Key (name)=(x) already exists.`, SQLite's `UNIQUE constraint failed: systems.name`.
 */
export function violatedColumn(err: unknown): string | undefined {
  const e = err as { detail?: unknown; message?: unknown } | null
  if (typeof e?.detail === 'string') return /^Key \(([^)]+)\)/.exec(e.detail)?.[1]
  if (typeof e?.message === 'string') return /constraint failed: \w+\.(\w+)/.exec(e.message)?.[1]
  return undefined
}
