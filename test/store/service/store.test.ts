import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  AlreadyExistsError,
  createdBy,
  type ServiceStore,
  type TokenRow,
} from '../../../store/service/index.js'
import { BACKENDS, openTestStore } from '../backends.js'

const actor = { by: 'tester', through: 'test' }

function token(id: string, hash: string, extra: Partial<TokenRow> = {}): TokenRow {
  return {
    id,
    description: `token ${id}`,
    secret_hash: hash,
    allow_path_patterns: '[]',
    ttl: '',
    expires_at: '2999-01-01T00:00:00.000Z',
    roles: '[]',
    system_id: null,
    generation: 0,
    ...createdBy(actor),
    ...extra,
  }
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`service store on ${backend.name}`, () => {
    let store: ServiceStore
    let close: () => Promise<void>
    beforeAll(async () => {
      ;({ store, close } = await openTestStore(backend))
    })
    afterAll(async () => close?.())

    it('is ready once migrated, and migrating again is a no-op', async () => {
      expect(await store.ready()).toBe(true)
      const { migrateToLatest } = await import('../../../store/migrations/index.js')
      // biome-ignore lint/suspicious/noExplicitAny: reaching the private database handle for this check only.
      expect(await migrateToLatest((store as any).database)).toEqual([])
    })

    it('stores tokens by hash and refuses a taken id', async () => {
      await store.tokens.insert(token('a', 'hash-a'))
      expect((await store.tokens.findByHash('hash-a'))?.id).toBe('a')
      expect(await store.tokens.findByHash('hash-x')).toBeUndefined()
      await expect(store.tokens.insert(token('a', 'hash-b'))).rejects.toBeInstanceOf(AlreadyExistsError)
      expect(await store.tokens.replace({ ...token('a', 'hash-c'), description: 'new' })).toBe(true)
      expect((await store.tokens.get('a'))?.description).toBe('new')
      expect(await store.tokens.findByHash('hash-a')).toBeUndefined()
      expect(await store.tokens.count()).toBe(1)
      expect(await store.tokens.delete('a')).toBe(true)
      expect(await store.tokens.delete('a')).toBe(false)
    })

    it('keeps settings first-writer-wins', async () => {
      expect(await store.settings.getOrInit('k', 'one')).toBe('one')
      expect(await store.settings.getOrInit('k', 'two')).toBe('one')
    })

    it('refuses a duplicate system name and bumps content versions', async () => {
      const row = {
        id: 's1',
        name: 'one',
        type: 'custom',
        config: '{}',
        status: 'Pending',
        status_errors: null,
        content_version: 0,
        ...createdBy(actor),
      }
      await store.systems.insert(row)
      await expect(store.systems.insert({ ...row, id: 's2' })).rejects.toThrow(/named "one"/)
      await expect(store.systems.insert({ ...row, name: 'other' })).rejects.toThrow(/s1 already exists/)
      expect(await store.systems.bumpContentVersion('s1')).toBe(1)
      expect(await store.systems.update('s1', { description: undefined, name: 'uno' } as never)).toBe(2)
      expect(await store.systems.update('nope', { name: 'x' })).toBeUndefined()
      await store.systems.setStatus('s1', 'BundleBuildFailed', ['bad'])
      const got = await store.systems.get('s1')
      expect(got).toMatchObject({ name: 'uno', status: 'BundleBuildFailed', status_errors: '["bad"]' })
    })

    it('rolls a transaction back when it throws', async () => {
      await expect(
        store.transaction(async (tx) => {
          await tx.tokens.insert(token('t1', 'hash-t1'))
          throw new Error('boom')
        }),
      ).rejects.toThrow('boom')
      expect(await store.tokens.get('t1')).toBeUndefined()
    })

    it('lists policies by literal prefix (wildcards are not special)', async () => {
      for (const path of ['systems/a/x', 'systems/a_b/y', 'systems/a%/z', 'other/q']) {
        await store.policies.upsert({ path, system_id: null, modules: '{}', ...createdBy(actor) })
      }
      expect((await store.policies.list('systems/a_')).map((p) => p.path)).toEqual(['systems/a_b/y'])
      expect((await store.policies.list('systems/a%')).map((p) => p.path)).toEqual(['systems/a%/z'])
      expect((await store.policies.list()).length).toBe(4)
      await store.policies.upsert({
        path: 'other/q',
        system_id: null,
        modules: '{"a.rego":""}',
        ...createdBy(actor),
      })
      expect((await store.policies.get('other/q'))?.modules).toBe('{"a.rego":""}')
    })

    it('lists data documents strictly below a path', async () => {
      for (const path of ['d/a', 'd/a/b', 'd/ab']) {
        await store.dataDocuments.upsert({
          path,
          system_id: null,
          value: '1',
          etag: '"e"',
          ...createdBy(actor),
        })
      }
      expect((await store.dataDocuments.listBelow('d/a')).map((d) => d.path)).toEqual(['d/a/b'])
      expect((await store.dataDocuments.getMany(['d/a', 'd/x'])).map((d) => d.path)).toEqual(['d/a'])
    })

    it("reads a data document's ETag and audit columns without its value", async () => {
      const meta = await store.dataDocuments.getMeta('d/a')
      expect(meta).toMatchObject({ path: 'd/a', system_id: null, etag: '"e"', created_by: actor.by })
      expect(meta).not.toHaveProperty('value')
      expect(await store.dataDocuments.getMeta('d/none')).toBeUndefined()
    })

    it('never replaces a bundle with an older build', async () => {
      const base = { system_id: 's1', kind: 'policy', size: 3, built_at: new Date().toISOString() }
      expect(
        await store.bundles.saveIfNewer({
          ...base,
          revision: 'r2',
          content_version: 2,
          bytes: new Uint8Array([1, 2, 3]),
        }),
      ).toBe(true)
      expect(
        await store.bundles.saveIfNewer({
          ...base,
          revision: 'r1',
          content_version: 1,
          bytes: new Uint8Array([9]),
        }),
      ).toBe(false)
      expect(await store.bundles.revision('s1', 'policy')).toBe('r2')
      expect(
        await store.bundles.saveIfNewer({
          ...base,
          revision: 'r3',
          content_version: 3,
          bytes: new Uint8Array([7]),
        }),
      ).toBe(true)
      const got = await store.bundles.get('s1', 'policy')
      expect(got?.revision).toBe('r3')
      expect([...(got?.bytes ?? [])]).toEqual([7])
    })

    it('keeps the newest status per agent', async () => {
      const now = new Date().toISOString()
      await store.agentStatus.upsert({ agent_id: 'a1', system_id: 's1', status: '{"n":1}', updated_at: now })
      await store.agentStatus.upsert({ agent_id: 'a1', system_id: 's1', status: '{"n":2}', updated_at: now })
      await store.agentStatus.upsert({ agent_id: 'a2', system_id: 's2', status: '{"n":3}', updated_at: now })
      expect((await store.agentStatus.list(['s1'])).map((r) => r.status)).toEqual(['{"n":2}'])
      expect((await store.agentStatus.list()).length).toBe(2)
      expect(await store.agentStatus.list([])).toEqual([])
    })

    it('keys agent status by (system, agent id): another system cannot overwrite a report', async () => {
      const now = new Date().toISOString()
      await store.agentStatus.upsert({
        agent_id: 'shared',
        system_id: 's1',
        status: '{"real":1}',
        updated_at: now,
      })
      await store.agentStatus.upsert({
        agent_id: 'shared',
        system_id: 's2',
        status: '{"forged":1}',
        updated_at: now,
      })
      await store.agentStatus.upsert({
        agent_id: 'shared',
        system_id: null,
        status: '{"none":1}',
        updated_at: now,
      })
      await store.agentStatus.upsert({
        agent_id: 'shared',
        system_id: null,
        status: '{"none":2}',
        updated_at: now,
      })
      expect((await store.agentStatus.list(['s1'])).filter((r) => r.agent_id === 'shared')).toMatchObject([
        { system_id: 's1', status: '{"real":1}' },
      ])
      const all = (await store.agentStatus.list()).filter((r) => r.agent_id === 'shared')
      expect(all.map((r) => r.status).sort()).toEqual(['{"forged":1}', '{"none":2}', '{"real":1}'])
    })
  })
}
