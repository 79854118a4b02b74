import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { GitSyncRow, ServiceStore } from '../../../store/service/index.js'
import { BACKENDS, openTestStore } from '../backends.js'

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`git sync state on ${backend.name}`, () => {
    let store: ServiceStore
    let close: () => Promise<void>
    beforeAll(async () => {
      ;({ store, close } = await openTestStore(backend))
    })
    afterAll(async () => close?.())

    const row: GitSyncRow = {
      system_id: 's1',
      origin: '["file:///r.git","main","",""]',
      commit_sha: 'a'.repeat(40),
      ref: 'refs/heads/main',
      synced_at: '2026-01-01T00:00:00.000Z',
      error_code: null,
      error: null,
      attempted_at: '2026-01-01T00:00:00.000Z',
    }

    it('puts, replaces and deletes one row per system', async () => {
      expect(await store.gitSync.get('s1')).toBeUndefined()
      await store.gitSync.put(row)
      expect(await store.gitSync.get('s1')).toEqual(row)
      const failed = {
        ...row,
        error_code: 'auth_failed',
        error: 'refused',
      }
      await store.gitSync.put(failed)
      expect(await store.gitSync.get('s1')).toEqual(failed)
      await store.gitSync.put({ ...row, system_id: 's2' })
      await store.gitSync.delete('s1')
      expect(await store.gitSync.get('s1')).toBeUndefined()
      expect((await store.gitSync.get('s2'))?.commit_sha).toBe(row.commit_sha)
    })
  })
}
