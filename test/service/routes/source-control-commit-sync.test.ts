/**
 * POST /v1/systems/{id}/commits on the branch a git-backed system follows rebuilds the system from
 * the new commit before answering (polling is off here, so nothing else could); a commit to another
 * branch leaves the system on what it was built from.
 */
import { rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Bundle, readBundle } from '../../../core/bundle/index.js'
import { BACKENDS } from '../../store/backends.js'
import { git, makeOrigin, type Origin, tempDir } from '../git/fixtures.js'
import { startTestService, type TestService } from '../harness.js'

const sqlite = BACKENDS.find((b) => b.name === 'sqlite')!

describe('a commit to the followed branch syncs the system', () => {
  let t: TestService
  let root: string
  let origin: Origin

  const bundle = async (id: string): Promise<Bundle> =>
    readBundle(new Uint8Array(await (await t.call('GET', `/v1/bundles/systems/${id}`)).arrayBuffer()))
  const commit = (id: string, branch: string, files: Record<string, string>) =>
    t.json<{ result: { sha: string; branch: string } }>('POST', `/v1/systems/${id}/commits`, {
      body: {
        branch,
        author: 'Ada',
        email: 'ada@example.com',
        message: 'change',
        files,
        files_to_delete: [],
      },
    })
  const createSystem = async (name: string, reference: string) => {
    const res = await t.json<{ result: { id: string; status: string } }>('POST', '/v1/systems', {
      body: {
        name,
        type: 'custom',
        source_control: { origin: { url: `file://${origin.bare}`, reference, path: 'policies' } },
      },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect(res.body.result.status).toBe('Ready')
    return res.body.result.id
  }

  beforeAll(async () => {
    root = tempDir()
    origin = makeOrigin(root, { 'policies/app/data.json': '{"users": ["alice"]}' })
    t = await startTestService(sqlite, '{git: {poll_interval: "0"}}')
  })
  afterAll(async () => {
    await t?.close()
    rmSync(root, { recursive: true, force: true })
  })

  it('serves the committed content at once on the followed branch, and not for another branch', async () => {
    const id = await createSystem('follows-main', 'main')
    const before = git(origin.bare, 'rev-parse', 'main')
    expect((await bundle(id)).manifest.revision).toMatch(new RegExp(`^${before}-`))

    const onMain = await commit(id, 'main', { 'app/data.json': '{"users": ["alice", "bob"]}' })
    expect(onMain.status, JSON.stringify(onMain.body)).toBe(200)
    expect(onMain.body.result.sha).toBe(git(origin.bare, 'rev-parse', 'main'))
    const rebuilt = await bundle(id)
    expect(rebuilt.manifest.revision).toMatch(new RegExp(`^${onMain.body.result.sha}-`))
    expect(rebuilt.data).toEqual({ app: { users: ['alice', 'bob'] } })
    expect((await t.service.store.gitSync.get(id))?.commit_sha).toBe(onMain.body.result.sha)

    const onFeature = await commit(id, 'feature', { 'app/data.json': '{"users": []}' })
    expect(onFeature.status, JSON.stringify(onFeature.body)).toBe(200)
    expect((await bundle(id)).manifest.revision).toBe(rebuilt.manifest.revision)
  })

  it('syncs a system whose reference is the full branch name', async () => {
    const id = await createSystem('follows-refs-heads-main', 'refs/heads/main')
    const res = await commit(id, 'main', { 'app/data.json': '{"users": ["carol"]}' })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
    expect((await bundle(id)).manifest.revision).toMatch(new RegExp(`^${res.body.result.sha}-`))
  })
})
