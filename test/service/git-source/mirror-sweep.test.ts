/**
 * The sweep of unused mirrors on a real service: bare repositories over file://, systems and a
 * git datasource fetching them into `<dataDir>/git-mirrors`, then systems deleted or pointed
 * elsewhere and the datasource deleted. A mirror goes only when nothing uses it, never while its
 * lock is held, and never within the grace period after this process handed it out.
 */
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { parseRemoteUrl } from '../../../service/git/index.js'
import { mirrorFolderName, mirrorLocks, mirrorsRoot } from '../../../service/git/mirror.js'
import { sweepUnusedMirrors } from '../../../service/git-source/mirror-sweep.js'
import { BACKENDS } from '../../store/backends.js'
import { git, makeOrigin, type Origin, tempDir } from '../git/fixtures.js'
import { startTestService, type TestService } from '../harness.js'

const POLICY = 'package app\n\nallow := true\n'

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`mirror sweep on ${backend.name}`, () => {
    let t: TestService
    let root: string
    const origins: Record<'a' | 'b' | 'c', Origin> = {} as never
    const url = (name: keyof typeof origins) => `file://${origins[name].bare}`
    const mirrorPath = (name: keyof typeof origins) =>
      join(mirrorsRoot(t.dataDir), mirrorFolderName(parseRemoteUrl(url(name)).url))
    const sweep = (graceMs = 0) =>
      sweepUnusedMirrors({ store: t.service.store, dataDir: t.dataDir, logger: silent, graceMs })

    const createSystem = async (id: string, origin: keyof typeof origins) => {
      const res = await t.json<{ result: { status: string }; message?: string }>('PUT', `/v1/systems/${id}`, {
        headers: { 'If-None-Match': '*' },
        body: {
          name: id,
          type: 'custom',
          source_control: {
            origin: { url: url(origin), reference: 'main', commit: '', path: '', credentials: '' },
          },
        },
      })
      expect(res.status, res.body.message).toBe(200)
      expect(res.body.result.status).toBe('Ready')
    }
    const deleteSystem = async (id: string) => {
      expect((await t.call('DELETE', `/v1/systems/${id}`)).status).toBe(200)
    }

    beforeAll(async () => {
      root = tempDir()
      for (const name of ['a', 'b', 'c'] as const)
        origins[name] = makeOrigin(root, { 'app.rego': POLICY, 'data/x.json': '{"x": 1}' }, name)
      t = await startTestService(
        backend,
        '{git: {poll_interval: "0"}, datasources: {scheduler_interval: 1h}}',
      )
      await createSystem('one', 'a')
      await createSystem('two', 'b')
      await createSystem('three', 'b')
      await createSystem('four', 'c')
      await t.json('PUT', '/v1/systems/app', {
        body: { name: 'app', type: 'custom' },
        headers: { 'If-None-Match': '*' },
      })
      const put = await t.json<{ message?: string }>('PUT', '/v1/datasources/systems/app/repo', {
        body: { category: 'git/content', url: url('c'), reference: 'refs/heads/main', path: 'data' },
      })
      expect(put.status, put.body.message).toBe(200)
      const run = await t.json<{ message?: string }>('POST', '/v1/datasources/systems/app/repo')
      expect(run.status, run.body.message).toBe(200)
    })
    afterAll(async () => {
      await t?.close()
      rmSync(root, { recursive: true, force: true })
    })

    it('keeps every mirror a system or a datasource uses', async () => {
      for (const name of ['a', 'b', 'c'] as const) expect(existsSync(mirrorPath(name)), name).toBe(true)
      expect(await sweep()).toEqual([])
      for (const name of ['a', 'b', 'c'] as const) expect(existsSync(mirrorPath(name)), name).toBe(true)
    })

    it('removes the mirror of a deleted system at the next sweep, leaving the others', async () => {
      await deleteSystem('one')
      expect(existsSync(mirrorPath('a'))).toBe(true)
      expect(await sweep()).toEqual([mirrorFolderName(parseRemoteUrl(url('a')).url)])
      expect(existsSync(mirrorPath('a'))).toBe(false)
      expect(existsSync(mirrorPath('b'))).toBe(true)
      expect(existsSync(mirrorPath('c'))).toBe(true)
    })

    it('keeps a mirror another system shares, and one a datasource uses', async () => {
      await deleteSystem('two')
      await deleteSystem('four')
      expect(await sweep()).toEqual([])
      expect(existsSync(mirrorPath('b'))).toBe(true)
      expect(existsSync(mirrorPath('c'))).toBe(true)
    })

    it('removes the old mirror when a system points at another repository', async () => {
      const res = await t.json<{ result: { status: string }; message?: string }>('PUT', '/v1/systems/three', {
        body: {
          source_control: {
            origin: { url: url('a'), reference: 'main', commit: '', path: '', credentials: '' },
          },
        },
      })
      expect(res.status, res.body.message).toBe(200)
      expect(res.body.result.status).toBe('Ready')
      await sweep()
      expect(existsSync(mirrorPath('b'))).toBe(false)
      expect(existsSync(mirrorPath('a'))).toBe(true)
    })

    it('removes the mirror of a deleted git datasource', async () => {
      expect((await t.call('DELETE', '/v1/datasources/systems/app/repo')).status).toBe(200)
      await sweep()
      expect(existsSync(mirrorPath('c'))).toBe(false)
    })

    it('leaves a mirror this process handed out within the grace period', async () => {
      // Used a moment ago by the update above; system "three" is deleted now.
      await deleteSystem('three')
      expect(await sweep(60_000)).toEqual([])
      expect(existsSync(mirrorPath('a'))).toBe(true)
    })

    it('waits for the mirror lock: never removes a mirror while an operation holds it', async () => {
      let release!: () => void
      let entered!: () => void
      const inside = new Promise<void>((resolve) => {
        entered = resolve
      })
      const held = mirrorLocks.run(mirrorPath('a'), async () => {
        entered()
        await new Promise<void>((resolve) => {
          release = resolve
        })
        // The sweep queued behind us has not run: the mirror is still there at the end of our turn.
        expect(existsSync(mirrorPath('a'))).toBe(true)
      })
      await inside
      const sweeping = sweep()
      await new Promise((resolve) => setImmediate(resolve))
      expect(existsSync(mirrorPath('a'))).toBe(true)
      release()
      await held
      expect(await sweeping).toEqual([mirrorFolderName(parseRemoteUrl(url('a')).url)])
      expect(existsSync(mirrorPath('a'))).toBe(false)
    })

    it('leaves folders that are not mirrors alone', async () => {
      const other = join(mirrorsRoot(t.dataDir), 'notes')
      mkdirSync(other, { recursive: true })
      writeFileSync(join(other, 'keep.txt'), 'mine')
      await sweep()
      expect(existsSync(join(other, 'keep.txt'))).toBe(true)
    })
  })
}

describe.skipIf(!BACKENDS[0]!.available)('the git poller sweeps after its rounds', () => {
  it('removes a mirror no configuration uses and this process never opened', async () => {
    const t = await startTestService(BACKENDS[0]!, '{git: {poll_interval: "1s"}}')
    try {
      // A mirror left by an earlier run for a repository nobody configures any more.
      const stale = join(mirrorsRoot(t.dataDir), 'f'.repeat(32))
      git(t.dataDir, 'init', '--quiet', '--bare', stale)
      await vi.waitFor(() => expect(existsSync(stale)).toBe(false), { timeout: 20_000, interval: 100 })
      expect(t.logs.some((line) => line.includes('removed git mirrors no configuration uses'))).toBe(true)
    } finally {
      await t.close()
    }
  })
})

const silent = {
  info: () => {},
  error: () => {},
} as never
