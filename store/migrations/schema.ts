/**
 * What every migration shares. Migrations must not depend on today's table types, so they work
 * on an untyped database; the audit columns are the `meta.v1.ObjectMeta` fields each object keeps.
 */
import type { Kysely } from 'kysely'

// biome-ignore lint/suspicious/noExplicitAny: migrations must not depend on today's table types.
export type AnyDb = Kysely<any>

/** The audit columns (all text, not null) of every object table. */
export const AUDIT_COLUMNS = [
  'created_at',
  'created_by',
  'created_through',
  'last_modified_at',
  'last_modified_by',
  'last_modified_through',
] as const
