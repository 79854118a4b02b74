/**
 * Migration 0004: the grant store of access control (issue 18). One table: each row grants a
 * role on a resource to one subject, and belongs to a role binding (`binding_id`, plus the
 * binding's v1 name under its resource). v1 and v2 role bindings are views over these rows.
 * A binding whose subject list is empty keeps one row with `subject_kind = ''`, which grants
 * nothing but keeps the binding. `grants_version` in `settings` is bumped with every change so
 * replicas notice it cheaply. The roles tokens carried in their own row (the bootstrap
 * administrator) become grants here, so grants are the one source of truth.
 */
import { sql } from 'kysely'
import { type AnyDb, AUDIT_COLUMNS } from './schema.js'

/** Creates `grants` and moves the roles of existing token rows into it. */
export function grantsMigration() {
  return {
    async up(db: AnyDb): Promise<void> {
      let grants = db.schema
        .createTable('grants')
        .addColumn('id', 'text', (c) => c.primaryKey())
        .addColumn('binding_id', 'text', (c) => c.notNull())
        .addColumn('binding_name', 'text', (c) => c.notNull())
        .addColumn('description', 'text', (c) => c.notNull())
        .addColumn('role', 'text', (c) => c.notNull())
        .addColumn('resource_kind', 'text', (c) => c.notNull())
        .addColumn('resource_id', 'text', (c) => c.notNull())
        .addColumn('subject_kind', 'text', (c) => c.notNull())
        .addColumn('subject_id', 'text', (c) => c.notNull())
        .addColumn('claim_provider', 'text', (c) => c.notNull())
        .addColumn('claim_key', 'text', (c) => c.notNull())
        .addColumn('claim_value', 'text', (c) => c.notNull())
      for (const col of AUDIT_COLUMNS) grants = grants.addColumn(col, 'text', (c) => c.notNull())
      await grants.execute()
      await db.schema.createIndex('grants_binding').on('grants').column('binding_id').execute()
      await db.schema
        .createIndex('grants_resource')
        .on('grants')
        .columns(['resource_kind', 'resource_id'])
        .execute()
      await db.schema
        .createIndex('grants_subject')
        .on('grants')
        .columns(['subject_kind', 'subject_id'])
        .execute()

      const tokens = await db.selectFrom('tokens').select(['id', 'roles']).execute()
      const now = new Date().toISOString()
      for (const token of tokens as Array<{ id: string; roles: string }>) {
        let roles: unknown
        try {
          roles = JSON.parse(token.roles)
        } catch {
          roles = []
        }
        if (!Array.isArray(roles)) continue
        for (const role of roles.filter((r): r is string => typeof r === 'string')) {
          const bindingId = `token-${token.id}-${role}`
          await db
            .insertInto('grants')
            .values({
              id: `${bindingId}#0`,
              binding_id: bindingId,
              binding_name: bindingId,
              description: `migrated from the roles of token ${token.id}`,
              role,
              resource_kind: 'workspace',
              resource_id: '',
              subject_kind: 'token',
              subject_id: token.id,
              claim_provider: '',
              claim_key: '',
              claim_value: '',
              created_at: now,
              created_by: 'regent',
              created_through: 'migration',
              last_modified_at: now,
              last_modified_by: 'regent',
              last_modified_through: 'migration',
            })
            .execute()
        }
      }
      await sql`insert into settings (key, value) values ('grants_version', '1')`.execute(db)
    },
  }
}
