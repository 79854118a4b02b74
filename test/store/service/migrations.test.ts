import { Migrator, sql } from 'kysely'
import { afterEach, describe, expect, it } from 'vitest'
import { openDatabase, type ServiceDatabase } from '../../../store/database.js'
import { migrateToLatest, serviceMigrations } from '../../../store/migrations/index.js'
import { ServiceStore } from '../../../store/service/index.js'
import { BACKENDS, type TestDatabase } from '../backends.js'

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`migrations on ${backend.name}`, () => {
    let database: TestDatabase | undefined
    let open: ServiceDatabase | undefined
    afterEach(async () => {
      await open?.close()
      await database?.cleanup()
    })

    it('0002 keeps every decision and status of a 0001 database and keys them by system', async () => {
      database = await backend.create()
      open = await openDatabase({ url: database.url, schema: database.schema })
      const migrator = new Migrator({
        db: open.db,
        provider: { getMigrations: async () => serviceMigrations(open!.dialect) },
        migrationTableName: 'regent_migrations',
        migrationLockTableName: 'regent_migrations_lock',
        ...(open.schema ? { migrationTableSchema: open.schema } : {}),
      })
      expect((await migrator.migrateTo('0001-initial')).error).toBeUndefined()
      const row = (id: string, system: string | null) => ({
        decision_id: id,
        system_id: system,
        path: 'p',
        result_kind: 'ALLOWED',
        ts_us: 1,
        received_us: 1,
        raw: `{"decision_id":"${id}"}`,
      })
      await open.db
        .insertInto('decisions')
        .values([row('a', 's1'), row('b', null)])
        .execute()
      await open.db
        .insertInto('agent_status')
        .values({ agent_id: 'x', system_id: 's1', status: '{}', updated_at: 'now' })
        .execute()
      const audit = {
        created_at: 'now',
        created_by: 'regent',
        created_through: 'bootstrap',
        last_modified_at: 'now',
        last_modified_by: 'regent',
        last_modified_through: 'bootstrap',
      }
      await open.db
        .insertInto('tokens')
        .values({
          id: 'old-admin',
          description: '',
          secret_hash: 'h',
          allow_path_patterns: '[]',
          ttl: '',
          expires_at: '9999-01-01T00:00:00Z',
          roles: '["WorkspaceAdministrator"]',
          system_id: null,
          generation: 0,
          ...audit,
        })
        .execute()
      expect(await migrateToLatest(open)).toEqual([
        '0002-records-keyed-by-system',
        '0003-decision-text-index',
        '0004-grants',
        '0005-secrets',
        '0006-activity',
        '0007-datasources',
        '0008-git-sync',
        '0009-bundle-registry',
        '0010-libraries',
        '0011-data-chunks',
        '0012-decision-text-table',
      ])
      // 0004 turns the roles token rows carried into grants on the workspace.
      const grants = await open.db
        .selectFrom('grants')
        .select(['role', 'resource_kind', 'subject_kind', 'subject_id'])
        .execute()
      expect(grants).toEqual([
        {
          role: 'WorkspaceAdministrator',
          resource_kind: 'workspace',
          subject_kind: 'token',
          subject_id: 'old-admin',
        },
      ])
      // 0003 indexes the rows already stored.
      if (open.dialect === 'sqlite') {
        const { rows } = await sql<{ n: number }>`select count(*) as n from decisions_fts
          where decisions_fts match '"dec"'`.execute(open.db)
        expect(rows[0]?.n).toBe(2)
      } else {
        // 0012 moved the index to `decision_texts`, filled with the rows already stored.
        const { rows } =
          await sql`select indexname from pg_indexes where tablename in ('decisions', 'decision_texts')
          and indexname like '%trgm' and schemaname = current_schema()`.execute(open.db)
        expect(rows).toEqual([{ indexname: 'decision_texts_raw_trgm' }])
        const copied = await sql<{ n: string }>`select count(*) as n from decision_texts
          where raw ilike '%dec%'`.execute(open.db)
        expect(Number(copied.rows[0]?.n)).toBe(2)
      }
      await open.close()
      open = undefined

      const store = await ServiceStore.open({ url: database.url, schema: database.schema })
      try {
        expect(await store.decisions.count()).toBe(2)
        const again = { systemId: 's1', path: 'p', resultKind: 'ALLOWED', tsUs: 2, receivedUs: 2, raw: '{}' }
        expect(await store.decisions.append([{ ...again, decisionId: 'a' }])).toBe(0)
        expect(await store.decisions.append([{ ...again, decisionId: 'a', systemId: 's2' }])).toBe(1)
        expect(await store.decisions.append([{ ...again, decisionId: 'b', systemId: null }])).toBe(0)
        await store.agentStatus.upsert({
          agent_id: 'x',
          system_id: 's2',
          status: '{"n":2}',
          updated_at: 'now',
        })
        expect((await store.agentStatus.list(['s1'])).map((r) => r.status)).toEqual(['{}'])
      } finally {
        await store.close()
      }
    })
  })
}
