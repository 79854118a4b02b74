/**
 * The `git/content` category against real repositories (git, file:// remotes): JSON, YAML and
 * XML files under `path` merged by their paths into the system's bundle, new commits picked up,
 * a pinned commit, a missing reference failing with the last good data kept. SQLite and
 * (when configured) PostgreSQL.
 */
import { rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readBundle } from '../../../core/bundle/index.js'
import { BACKENDS } from '../../store/backends.js'
import { makeOrigin, type Origin, startHttpBackend, tempDir } from '../git/fixtures.js'
import { startTestService, type TestService } from '../harness.js'

const PASSWORD = 'pw-4b7e1c9d2a'

interface Status {
  code: string
  message: string
  items: number | null
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`git/content datasources on ${backend.name}`, () => {
    let t: TestService
    let root: string
    let origin: Origin
    let first: string

    const put = (name: string, config: Record<string, unknown>) =>
      t.json<{ result: Record<string, unknown>; message?: string }>(
        'PUT',
        `/v1/datasources/systems/app/${name}`,
        {
          body: {
            category: 'git/content',
            url: `file://${origin.bare}`,
            reference: 'refs/heads/main',
            ...config,
          },
        },
      )
    const run = async (name: string) => {
      const res = await t.json<{ result: Status; message?: string }>(
        'POST',
        `/v1/datasources/systems/app/${name}`,
      )
      expect(res.status, res.body.message).toBe(200)
      return res.body.result
    }
    const bundleData = async () => {
      const bytes = new Uint8Array(await (await t.call('GET', '/v1/bundles/systems/app')).arrayBuffer())
      return (await readBundle(bytes)).data as Record<string, unknown>
    }

    beforeAll(async () => {
      root = tempDir()
      origin = makeOrigin(root, {
        'data/teams/red.json': '{"members": ["alice"]}',
        'data/teams/blue.yaml': 'members:\n  - bob\n',
        'data/regions.xml': '<regions><eu>fr</eu></regions>',
        'data/README.md': '# not data',
        'other/ignored.json': '{"x": 1}',
      })
      first = origin.push({}, [])
      t = await startTestService(backend, 'datasources: {scheduler_interval: 1h}')
      await t.json('PUT', '/v1/systems/app', {
        body: { name: 'app', type: 'custom' },
        headers: { 'If-None-Match': '*' },
      })
    })
    afterAll(async () => {
      await t?.close()
      rmSync(root, { recursive: true, force: true })
    })

    it('reads the files under path, merged by their paths, into the bundle', async () => {
      const res = await put('repo', { path: 'data' })
      expect(res.status, res.body.message).toBe(200)
      expect(res.body.result).toMatchObject({ timeout: '60s', rate_limit: 3, polling_interval: '30s' })
      expect(await run('repo')).toMatchObject({ code: 'ok', items: 2 })
      expect((await bundleData()).repo).toEqual({
        teams: { red: { members: ['alice'] }, blue: { members: ['bob'] } },
        regions: { regions: { eu: 'fr' } },
      })
    })

    it('picks up a new commit, and a pinned commit stays where it is', async () => {
      origin.push({ 'data/teams/red.json': '{"members": ["alice", "dave"]}' })
      expect(await run('repo')).toMatchObject({ code: 'ok' })
      expect(((await bundleData()).repo as { teams: { red: unknown } }).teams.red).toEqual({
        members: ['alice', 'dave'],
      })
      await put('pinned', { path: 'data/teams', commit: first })
      expect(await run('pinned')).toMatchObject({ code: 'ok' })
      expect((await bundleData()).pinned).toEqual({ red: { members: ['alice'] }, blue: { members: ['bob'] } })
    })

    it('filters with Rego', async () => {
      await put('members', {
        path: 'data/teams',
        policy_filter:
          'package f\n\nmembers contains m if {\n\tsome team in input\n\tsome m in team.members\n}\n',
        policy_query: 'data.f.members',
      })
      expect(await run('members')).toMatchObject({ code: 'ok', items: 3 })
      expect((await bundleData()).members).toEqual(['alice', 'bob', 'dave'])
    })

    it('fails on a missing reference or clashing files and keeps the last good data', async () => {
      await put('repo', { path: 'data', reference: 'refs/heads/nosuch' })
      const missing = await run('repo')
      expect(missing.code).toBe('error')
      expect(missing.message).toMatch(/^git error: reference_not_found/)
      expect(((await bundleData()).repo as { teams: unknown }).teams).toBeDefined()
      origin.push({ 'data/teams/red.yaml': 'members: [eve]\n' })
      await put('repo', { path: 'data' })
      const clash = await run('repo')
      expect(clash.code).toBe('error')
      expect(clash.message).toContain('merge error: teams/red.yaml: key members conflicts')
      expect(((await bundleData()).repo as { teams: { red: unknown } }).teams.red).toEqual({
        members: ['alice', 'dave'],
      })
    })

    it('builds a blame index of the files path_regexp matches (git/blame)', async () => {
      const firstCommit = origin.push({ 'src/app.txt': 'one\ntwo\nthree\n' })
      const second = origin.push({ 'src/app.txt': 'one\nTWO\nthree\nfour\n' })
      const res = await t.json<{ message?: string }>('PUT', '/v1/datasources/systems/app/blame', {
        body: {
          category: 'git/blame',
          url: `file://${origin.bare}`,
          reference: 'main',
          path_regexp: 'src/.*\\.txt',
        },
      })
      expect(res.status, res.body.message).toBe(200)
      expect(await run('blame')).toMatchObject({ code: 'ok', items: 1 })
      const who = { author: 'Test', email: 'test@example.com', time: expect.stringMatching(/^\d{4}-/) }
      expect((await bundleData()).blame).toEqual({
        'src/app.txt': [
          { start: 1, end: 1, commit: firstCommit, ...who },
          { start: 2, end: 2, commit: second, ...who },
          { start: 3, end: 3, commit: firstCommit, ...who },
          { start: 4, end: 4, commit: second, ...who },
        ],
      })
      const bad = await t.json<{ message: string }>('PUT', '/v1/datasources/systems/app/blame', {
        body: { category: 'git/blame', url: `file://${origin.bare}`, path_regexp: '(' },
      })
      expect(bad.status).toBe(400)
      expect(bad.body.message).toContain('path_regexp: expected a regular expression')
    })

    it('fetches over http with a login secret (name = username, value = password), like systems do', async () => {
      const http = await startHttpBackend(root, [{ username: 'alice', password: PASSWORD }])
      try {
        const url = `http://127.0.0.1:${http.port}/repo.git`
        for (const [id, name, secret] of [
          ['git/alice', 'alice', PASSWORD],
          ['git/alice-wrong', 'alice', 'not-it'],
          ['git/old-style', '', `alice:${PASSWORD}`],
        ])
          expect((await t.json('PUT', `/v1/secrets/${id}`, { body: { name, secret } })).status).toBe(200)
        await put('http-login', { url, path: 'data/teams', commit: first, credentials: 'git/alice' })
        const ok = await run('http-login')
        expect(ok, ok.message).toMatchObject({ code: 'ok', items: 2 })
        expect((await bundleData())['http-login']).toEqual({
          red: { members: ['alice'] },
          blue: { members: ['bob'] },
        })
        await put('http-wrong', { url, path: 'data/teams', credentials: 'git/alice-wrong' })
        expect((await run('http-wrong')).message).toMatch(/^git error: auth_failed/)
        // The value is never split at a colon any more: without a name it is a token.
        await put('http-old', { url, path: 'data/teams', credentials: 'git/old-style' })
        expect((await run('http-old')).message).toMatch(/^git error: auth_failed/)
        const status = JSON.stringify((await t.json('GET', '/v1/datasources/systems/app/http-wrong')).body)
        expect(status + t.logs.join('\n')).not.toContain(PASSWORD)
      } finally {
        http.server.close()
      }
    })

    it('asks for a key for an ssh remote, naming the field', async () => {
      await put('ssh', { url: 'git@example.com:org/repo.git' })
      expect(await run('ssh')).toMatchObject({
        code: 'error',
        message: 'secret error: ssh_credentials.private_key: required for a git repository over SSH',
      })
    })
  })
}
