/**
 * The grant store: rows of `grants`, written and read a role binding at a time. Every write
 * bumps `grants_version` in `settings` (in the same transaction when called inside one), which
 * is what replicas compare to notice a change made elsewhere.
 */
import { type Kysely, type Selectable, sql } from 'kysely'
import { type Actor, createdBy, modifiedBy } from './audit.js'
import type { AuditColumns, GrantsTable, ServiceTables } from './tables.js'

export type GrantRow = Selectable<GrantsTable>

/** Who a binding grants its role to. */
export type GrantSubject =
  | { kind: 'token' | 'user'; id: string }
  | { kind: 'claim'; provider: string; key: string; value: string }

/** A role binding as stored: a role on one resource for a list of subjects. */
export interface StoredBinding {
  id: string
  name: string
  description: string
  role: string
  resourceKind: string
  resourceId: string
  subjects: GrantSubject[]
  meta: AuditColumns
}

export const GRANTS_VERSION_SETTING = 'grants_version'

/** The subject a grant row names (undefined for an empty binding's placeholder row). */
export function subjectOf(row: GrantRow): GrantSubject | undefined {
  if (row.subject_kind === 'claim')
    return { kind: 'claim', provider: row.claim_provider, key: row.claim_key, value: row.claim_value }
  if (row.subject_kind === 'token' || row.subject_kind === 'user')
    return { kind: row.subject_kind, id: row.subject_id }
  return undefined
}

/** Groups rows (any order) into bindings, ordered by binding id. */
export function bindingsOf(rows: GrantRow[]): StoredBinding[] {
  const byId = new Map<string, StoredBinding>()
  for (const row of [...rows].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))) {
    let binding = byId.get(row.binding_id)
    if (!binding) {
      binding = {
        id: row.binding_id,
        name: row.binding_name,
        description: row.description,
        role: row.role,
        resourceKind: row.resource_kind,
        resourceId: row.resource_id,
        subjects: [],
        meta: {
          created_at: row.created_at,
          created_by: row.created_by,
          created_through: row.created_through,
          last_modified_at: row.last_modified_at,
          last_modified_by: row.last_modified_by,
          last_modified_through: row.last_modified_through,
        },
      }
      byId.set(row.binding_id, binding)
    }
    const subject = subjectOf(row)
    if (subject) binding.subjects.push(subject)
  }
  return [...byId.values()].sort((a, b) => (a.id < b.id ? -1 : a.id > b.id ? 1 : 0))
}

/** Reads and writes `grants`. */
export class GrantRepository {
  constructor(private readonly db: Kysely<ServiceTables>) {}

  /** Every grant row (the authorizer indexes them in memory). */
  listRows(): Promise<GrantRow[]> {
    return this.db.selectFrom('grants').selectAll().execute()
  }

  async list(): Promise<StoredBinding[]> {
    return bindingsOf(await this.listRows())
  }

  async get(bindingId: string): Promise<StoredBinding | undefined> {
    const rows = await this.db.selectFrom('grants').selectAll().where('binding_id', '=', bindingId).execute()
    return bindingsOf(rows)[0]
  }

  /** The binding called `name` on a resource (the v1 address). */
  async findByName(
    resourceKind: string,
    resourceId: string,
    name: string,
  ): Promise<StoredBinding | undefined> {
    const rows = await this.db
      .selectFrom('grants')
      .selectAll()
      .where('resource_kind', '=', resourceKind)
      .where('resource_id', '=', resourceId)
      .where('binding_name', '=', name)
      .execute()
    return bindingsOf(rows)[0]
  }

  /** Writes `binding` in place of whatever rows carried its id (keeping their creation fields). */
  async put(binding: Omit<StoredBinding, 'meta'>, actor: Actor, now = new Date()): Promise<void> {
    const previous = await this.db
      .selectFrom('grants')
      .selectAll()
      .where('binding_id', '=', binding.id)
      .limit(1)
      .executeTakeFirst()
    const audit: AuditColumns = previous
      ? {
          created_at: previous.created_at,
          created_by: previous.created_by,
          created_through: previous.created_through,
          ...modifiedBy(actor, now),
        }
      : createdBy(actor, now)
    await this.db.deleteFrom('grants').where('binding_id', '=', binding.id).execute()
    const subjects: Array<GrantSubject | undefined> =
      binding.subjects.length > 0 ? binding.subjects : [undefined]
    const rows = subjects.map((subject, i) => ({
      id: `${binding.id}#${i}`,
      binding_id: binding.id,
      binding_name: binding.name,
      description: binding.description,
      role: binding.role,
      resource_kind: binding.resourceKind,
      resource_id: binding.resourceId,
      subject_kind: subject?.kind ?? '',
      subject_id: subject && subject.kind !== 'claim' ? subject.id : '',
      claim_provider: subject?.kind === 'claim' ? subject.provider : '',
      claim_key: subject?.kind === 'claim' ? subject.key : '',
      claim_value: subject?.kind === 'claim' ? subject.value : '',
      ...audit,
    }))
    await this.db.insertInto('grants').values(rows).execute()
    await this.bump()
  }

  /** Resolves to false when there was no such binding. */
  async delete(bindingId: string): Promise<boolean> {
    const result = await this.db.deleteFrom('grants').where('binding_id', '=', bindingId).executeTakeFirst()
    const deleted = Number(result.numDeletedRows) > 0
    if (deleted) await this.bump()
    return deleted
  }

  /** Removes every binding on a resource (its system was deleted). */
  async deleteForResource(resourceKind: string, resourceId: string): Promise<void> {
    await this.db
      .deleteFrom('grants')
      .where('resource_kind', '=', resourceKind)
      .where('resource_id', '=', resourceId)
      .execute()
    await this.bump()
  }

  /** Takes a token or user out of every binding (its token was deleted). */
  async removeSubject(kind: 'token' | 'user', id: string): Promise<void> {
    const bindings = bindingsOf(
      await this.db
        .selectFrom('grants')
        .selectAll()
        .where('subject_kind', '=', kind)
        .where('subject_id', '=', id)
        .execute(),
    )
    for (const { id: bindingId } of bindings) {
      const binding = (await this.get(bindingId))!
      binding.subjects = binding.subjects.filter((s) => !(s.kind === kind && s.id === id))
      await this.put(binding, {
        by: binding.meta.last_modified_by,
        through: binding.meta.last_modified_through,
      })
    }
  }

  /** The change counter replicas compare. */
  async version(): Promise<string> {
    const row = await this.db
      .selectFrom('settings')
      .select('value')
      .where('key', '=', GRANTS_VERSION_SETTING)
      .executeTakeFirst()
    return row?.value ?? '0'
  }

  private async bump(): Promise<void> {
    await sql`update settings set value = cast(cast(value as integer) + 1 as text) where key = ${GRANTS_VERSION_SETTING}`.execute(
      this.db,
    )
  }
}
