/** Audit fields (`meta.v1.ObjectMeta`) shared by every object the service keeps. */
import type { AuditColumns } from './tables.js'

/** Who is changing something: a token id and the channel (e.g. `api`, `bootstrap`). */
export interface Actor {
  by: string
  through: string
}

/** `meta.v1.ObjectMeta` as the API returns it. */
export interface ObjectMeta {
  created_at: string
  created_by: string
  created_through: string
  last_modified_at: string
  last_modified_by: string
  last_modified_through: string
}

/** Audit columns for a new row. */
export function createdBy(actor: Actor, now = new Date()): AuditColumns {
  const at = now.toISOString()
  return {
    created_at: at,
    created_by: actor.by,
    created_through: actor.through,
    last_modified_at: at,
    last_modified_by: actor.by,
    last_modified_through: actor.through,
  }
}

/**
 * Audit columns for an upsert: a new row's, or, when the row exists, its creation kept and the
 * modification by `actor`.
 */
export function upsertedBy(actor: Actor, existing: AuditColumns | undefined, now = new Date()): AuditColumns {
  const columns = createdBy(actor, now)
  if (!existing) return columns
  return {
    ...columns,
    created_at: existing.created_at,
    created_by: existing.created_by,
    created_through: existing.created_through,
  }
}

/** Audit columns to set on an update. */
export function modifiedBy(
  actor: Actor,
  now = new Date(),
): Pick<AuditColumns, 'last_modified_at' | 'last_modified_by' | 'last_modified_through'> {
  return {
    last_modified_at: now.toISOString(),
    last_modified_by: actor.by,
    last_modified_through: actor.through,
  }
}

/** The API's metadata object from a row's audit columns. */
export function objectMeta(row: AuditColumns): ObjectMeta {
  return {
    created_at: row.created_at,
    created_by: row.created_by,
    created_through: row.created_through,
    last_modified_at: row.last_modified_at,
    last_modified_by: row.last_modified_by,
    last_modified_through: row.last_modified_through,
  }
}
