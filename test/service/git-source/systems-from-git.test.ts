/**
 * Systems built from git, end to end on a real service: a bare repository reached over file://,
 * a commit reaching the system's bundle (content, SBOM, revision), a broken commit kept out while
 * the last good bundle stays served, a missing reference, and pushed policies refused with 409.
 */
import { rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Bundle, readBundle } from '../../../core/bundle/index.js'
import { BACKENDS } from '../../store/backends.js'
import { makeOrigin, type Origin, tempDir } from '../git/fixtures.js'
import { startTestService, type TestService } from '../harness.js'

interface SystemView {
  id: string
  status: string
  errors: { bundle?: { errors: Array<{ code: string; message: string }> } }
}

interface SyncResult {
  commit?: string
  status?: string
  errors: string[]
  error?: { code: string; message: string }
}

const ALLOW = 'package app.authz\n\nallow if input.user == data.app.users[_]\n'

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`systems from git on ${backend.name}`, () => {
    let t: TestService
    let root: string
    let origin: Origin
    let first: string
    let id: string

    const bundle = async (): Promise<Bundle> =>
      readBundle(new Uint8Array(await (await t.call('GET', `/v1/bundles/systems/${id}`)).arrayBuffer()))
    const system = async () => (await t.json<{ result: SystemView }>('GET', `/v1/systems/${id}`)).body.result
    const sync = async () => t.json<{ result: SyncResult }>('POST', `/v1/systems/${id}/source-control/sync`)

    beforeAll(async () => {
      root = tempDir()
      origin = makeOrigin(root, {
        'README.md': 'not part of the bundle',
        'policies/app/authz.rego': ALLOW,
        'policies/app/data.json': '{"users": ["alice"]}',
        'policies/app/limits/data.yaml': 'max: 3\n',
        'elsewhere/other.rego': 'package other\n\nx := 1\n',
      })
      first = origin.push({})
      t = await startTestService(backend, '{git: {poll_interval: "0"}}')
      const created = await t.json<{ result: SystemView }>('POST', '/v1/systems', {
        body: {
          name: 'from-git',
          type: 'custom',
          source_control: {
            origin: {
              url: `file://${origin.bare}`,
              reference: 'main',
              commit: '',
              path: 'policies',
              credentials: '',
            },
          },
        },
      })
      expect(created.status).toBe(200)
      id = created.body.result.id
    })
    afterAll(async () => {
      await t?.close()
      rmSync(root, { recursive: true, force: true })
    })

    it('builds the bundle from the files under path at the reference, with the SBOM and the commit in the revision', async () => {
      expect((await system()).status).toBe('Ready')
      const b = await bundle()
      expect(b.modules.map((m) => m.path).sort()).toEqual(['app/authz.rego'])
      expect(b.data).toEqual({ app: { users: ['alice'], limits: { max: 3 } } })
      expect(b.manifest.revision).toMatch(new RegExp(`^${first}-[0-9a-f]{16}$`))
      const origins = (b.manifest.metadata as { sbom: { origins: Array<Record<string, unknown>> } }).sbom
        .origins
      expect(origins).toHaveLength(1)
      expect(origins[0]).toMatchObject({
        repo: `file://${origin.bare}`,
        ref: 'refs/heads/main',
        commit: first,
        path: 'policies',
        id,
        roots: ['app'],
      })
      expect(Date.parse(origins[0]!.timestamp as string)).not.toBeNaN()
    })

    it('takes a new commit on sync', async () => {
      const second = origin.push({ 'policies/app/data.json': '{"users": ["alice", "bob"]}' })
      const res = await sync()
      expect(res.status).toBe(200)
      expect(res.body.result).toMatchObject({ commit: second, status: 'Ready', errors: [] })
      const b = await bundle()
      expect(b.manifest.revision?.startsWith(second)).toBe(true)
      expect(b.data).toEqual({ app: { users: ['alice', 'bob'], limits: { max: 3 } } })
    })

    it('keeps the last good bundle and reports file:line when a commit does not compile, then recovers', async () => {
      const good = await bundle()
      const broken = origin.push({ 'policies/app/broken.rego': 'package app.broken\n\nallow if {\n' })
      const res = await sync()
      expect(res.body.result).toMatchObject({ commit: broken, status: 'BundleBuildFailed' })
      expect(res.body.result.errors.join('\n')).toMatch(
        /policies\/app\/broken\.rego:\d+:\d+: rego_parse_error/,
      )
      const view = await system()
      expect(view.status).toBe('BundleBuildFailed')
      expect(view.errors.bundle?.errors[0]?.message).toMatch(/policies\/app\/broken\.rego:\d+/)
      expect((await bundle()).manifest.revision).toBe(good.manifest.revision)

      const unsafe = origin.push({ 'policies/app/broken.rego': 'package app.broken\n\nallow if x == 1\n' })
      const again = await sync()
      expect(again.body.result).toMatchObject({ commit: unsafe, status: 'BundleBuildFailed' })
      expect(again.body.result.errors.join('\n')).toMatch(
        /policies\/app\/broken\.rego:3:\d+: rego_unsafe_var_error/,
      )

      const fixed = origin.push({}, ['policies/app/broken.rego'])
      expect((await sync()).body.result).toMatchObject({ commit: fixed, status: 'Ready' })
      expect((await bundle()).manifest.revision?.startsWith(fixed)).toBe(true)
    })

    it('names a data file that does not parse', async () => {
      const good = (await bundle()).manifest.revision
      origin.push({ 'policies/app/limits/data.yaml': 'max: [1\n' })
      const res = await sync()
      expect(res.body.result.status).toBe('BundleBuildFailed')
      expect(res.body.result.errors[0]).toMatch(/^policies\/app\/limits\/data\.yaml: /)
      expect((await bundle()).manifest.revision).toBe(good)
      const fixed = origin.push({ 'policies/app/limits/data.yaml': 'max: 4\n' })
      expect((await sync()).body.result).toMatchObject({ commit: fixed, status: 'Ready' })
    })

    it('is never Ready while the reference is missing, serves the last good bundle meanwhile and recovers', async () => {
      const good = (await bundle()).manifest.revision
      const put = await t.json<{ result: SystemView }>('PUT', `/v1/systems/${id}`, {
        body: {
          source_control: {
            origin: {
              url: `file://${origin.bare}`,
              reference: 'release',
              commit: '',
              path: 'policies',
              credentials: '',
            },
          },
        },
      })
      expect(put.status).toBe(200)
      expect(put.body.result.status).toBe('SourceControlFailed')
      expect(put.body.result.errors.bundle?.errors[0]?.message).toMatch(
        /reference_not_found: reference "release" not found/,
      )
      expect((await bundle()).manifest.revision).toBe(good)
      // The branch appears: the next sync builds it.
      const release = origin.push({ 'policies/app/data.json': '{"users": ["carol"]}' }, [], 'release')
      expect((await sync()).body.result).toMatchObject({ commit: release, status: 'Ready' })
      expect((await bundle()).data).toMatchObject({ app: { users: ['carol'] } })
    })

    it('builds a pinned commit, which wins over later pushes', async () => {
      const put = await t.json<{ result: SystemView }>('PUT', `/v1/systems/${id}`, {
        body: {
          source_control: {
            origin: {
              url: `file://${origin.bare}`,
              reference: '',
              commit: first,
              path: 'policies',
              credentials: '',
            },
          },
        },
      })
      expect(put.body.result.status).toBe('Ready')
      origin.push({ 'policies/app/data.json': '{"users": ["mallory"]}' })
      expect((await sync()).body.result).toMatchObject({ commit: first, status: 'Ready' })
      expect((await bundle()).data).toMatchObject({ app: { users: ['alice'] } })
    })

    it('reports a path that is not in the tree', async () => {
      const put = await t.json<{ result: SystemView }>('PUT', `/v1/systems/${id}`, {
        body: {
          source_control: {
            origin: {
              url: `file://${origin.bare}`,
              reference: 'main',
              commit: '',
              path: 'nope',
              credentials: '',
            },
          },
        },
      })
      expect(put.body.result.status).toBe('SourceControlFailed')
      expect(put.body.result.errors.bundle?.errors[0]?.message).toMatch(/path_not_found/)
    })

    it('reports a path that leaves the repository, naming the field', async () => {
      const put = await t.json<{ result: SystemView }>('PUT', `/v1/systems/${id}`, {
        body: {
          source_control: {
            origin: { url: `file://${origin.bare}`, reference: 'main', path: '../outside', credentials: '' },
          },
        },
      })
      expect(put.status).toBe(200)
      expect(put.body.result.status).toBe('SourceControlFailed')
      expect(put.body.result.errors.bundle?.errors[0]?.message).toMatch(
        /^invalid_input: path: .*leaves the repository/,
      )
    })

    it('follows refs/heads/master when neither reference nor commit is set', async () => {
      const master = origin.push({ 'policies/app/data.json': '{"users": ["dave"]}' }, [], 'master')
      const put = await t.json<{ result: SystemView }>('PUT', `/v1/systems/${id}`, {
        body: { source_control: { origin: { url: `file://${origin.bare}`, path: 'policies' } } },
      })
      expect(put.body.result.status).toBe('Ready')
      expect((await bundle()).manifest.revision).toMatch(new RegExp(`^${master}-`))
      expect((await bundle()).data).toMatchObject({ app: { users: ['dave'] } })
    })

    it('refuses policies pushed to a git-backed system with 409, and syncs only git-backed systems', async () => {
      const put = await t.json<{ message: string }>('PUT', `/v1/policies/systems/${id}/extra`, {
        body: { modules: { 'x.rego': 'package x\n\ny := 1\n' } },
      })
      expect(put.status).toBe(409)
      expect(put.body.message).toMatch(/built from git/)
      const other = await t.json<{ result: SystemView }>('POST', '/v1/systems', {
        body: { name: 'pushed', type: 'custom' },
      })
      const pushed = await t.json('PUT', `/v1/policies/systems/${other.body.result.id}/p`, {
        body: { modules: { 'x.rego': 'package x\n\ny := 1\n' } },
      })
      expect(pushed.status).toBe(200)
      const notGit = await t.json<{ message: string }>(
        'POST',
        `/v1/systems/${other.body.result.id}/source-control/sync`,
      )
      expect(notGit.status).toBe(400)
      expect(notGit.body.message).toMatch(/not built from git/)
      expect((await t.json('POST', '/v1/systems/nope/source-control/sync')).status).toBe(404)
    })

    it('forgets the sync state when the system is deleted', async () => {
      expect(await t.service.store.gitSync.get(id)).toBeDefined()
      expect((await t.json('DELETE', `/v1/systems/${id}`)).status).toBe(200)
      expect(await t.service.store.gitSync.get(id)).toBeUndefined()
    })
  })
}
