/**
 * `source_control_status` in `GET /v1/systems/{id}` of a system built from git (a bare repository
 * over file://): the commit and reference synced and when, the last failure and when, a changed
 * origin starting over, a pushed system without the field, and a GET body PUT back as is.
 */
import { renameSync, rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS } from '../../store/backends.js'
import { makeOrigin, type Origin, tempDir } from '../git/fixtures.js'
import { startTestService, type TestService } from '../harness.js'

interface Status {
  commit: string | null
  ref: string | null
  synced_at: string | null
  last_attempt_at: string | null
  error: { code: string; message: string; at: string | null } | null
}

interface SystemView {
  status: string
  source_control_status?: Status
  [key: string]: unknown
}

const POLICY = 'package app\n\nallow := true\n'

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`source_control_status on ${backend.name}`, () => {
    let t: TestService
    let root: string
    let origin: Origin
    let first: string

    const get = async (id: string) => {
      const res = await t.json<{ result: SystemView }>('GET', `/v1/systems/${id}`)
      expect(res.status).toBe(200)
      return res.body.result
    }
    const originOf = (reference: string) => ({
      origin: { url: `file://${origin.bare}`, reference, commit: '', path: '', credentials: '' },
    })
    const sync = () => t.json('POST', '/v1/systems/git/source-control/sync')

    beforeAll(async () => {
      root = tempDir()
      origin = makeOrigin(root, { 'app.rego': POLICY })
      first = origin.push({ 'app.rego': POLICY.replace('true', 'false') })
      t = await startTestService(backend, '{git: {poll_interval: "0"}}')
      for (const [id, body] of [
        ['git', { name: 'git', type: 'custom', source_control: originOf('main') }],
        ['pushed', { name: 'pushed', type: 'custom' }],
      ] as const) {
        const res = await t.json('PUT', `/v1/systems/${id}`, { body, headers: { 'If-None-Match': '*' } })
        expect(res.status).toBe(200)
      }
    })
    afterAll(async () => {
      await t?.close()
      rmSync(root, { recursive: true, force: true })
    })

    it('shows the commit and reference synced and when', async () => {
      const status = (await get('git')).source_control_status
      expect(status).toMatchObject({ commit: first, ref: 'refs/heads/main', error: null })
      expect(Date.parse(status!.synced_at!)).not.toBeNaN()
      expect(status!.last_attempt_at).toBe(status!.synced_at)
    })

    it('follows a new commit after a sync', async () => {
      const before = (await get('git')).source_control_status!
      const second = origin.push({ 'other.rego': 'package other\n\nx := 1\n' })
      await sync()
      const after = (await get('git')).source_control_status!
      expect(after.commit).toBe(second)
      expect(after.synced_at! >= before.synced_at!).toBe(true)
    })

    it('shows the last failure and when, keeping the commit still built', async () => {
      const good = (await get('git')).source_control_status!
      const moved = `${origin.bare}.moved`
      renameSync(origin.bare, moved)
      try {
        await sync()
        const view = await get('git')
        expect(view.status).toBe('SourceControlFailed')
        const status = view.source_control_status!
        expect(status.commit).toBe(good.commit)
        expect(status.synced_at).toBe(good.synced_at)
        expect(status.error?.code).toBe('repository_unreachable')
        expect(status.error?.message).not.toBe('')
        expect(status.error?.at).toBe(status.last_attempt_at)
        expect(status.last_attempt_at! >= good.synced_at!).toBe(true)
      } finally {
        renameSync(moved, origin.bare)
      }
      await sync()
      expect((await get('git')).source_control_status).toMatchObject({ commit: good.commit, error: null })
    })

    it('starts over when the origin changes: no commit for a reference that does not exist', async () => {
      const put = await t.json<{ result: SystemView }>('PUT', '/v1/systems/git', {
        body: { source_control: originOf('nope') },
      })
      expect(put.status).toBe(200)
      expect(put.body.result.source_control_status).toMatchObject({
        commit: null,
        ref: null,
        synced_at: null,
        error: { code: 'reference_not_found' },
      })
    })

    it('is absent for a system built from pushed policies, and in the list too', async () => {
      expect((await get('pushed')).source_control_status).toBeUndefined()
      const list = await t.json<{ result: Array<SystemView & { id: string }> }>('GET', '/v1/systems')
      const byId = new Map(list.body.result.map((s) => [s.id, s]))
      expect(byId.get('pushed')?.source_control_status).toBeUndefined()
      expect(byId.get('git')?.source_control_status?.error?.code).toBe('reference_not_found')
    })

    it('accepts a GET body PUT back as is, without storing the status', async () => {
      await t.json('PUT', '/v1/systems/git', { body: { source_control: originOf('main') } })
      const view = await get('git')
      const put = await t.json<{ result: SystemView; message?: string }>('PUT', '/v1/systems/git', {
        body: view,
      })
      expect(put.status, put.body.message).toBe(200)
      const stored = await t.service.store.systems.get('git')
      expect(JSON.parse(stored!.config)).not.toHaveProperty('source_control_status')
      expect(put.body.result.source_control_status?.error).toBeNull()
    })
  })
}
