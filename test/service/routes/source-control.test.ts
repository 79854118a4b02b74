/**
 * The source-control endpoints against real repositories: a bare origin over file://, and
 * `git http-backend` with basic auth (test/service/git/fixtures.ts). Round-trips of commits,
 * branches and files; bad input refused before anything is written; concurrent commits; a lost
 * push race; and no credential value in any response, log line, activity record or database file.
 * (The ssh transport through these endpoints: source-control-ssh.test.ts.)
 */
import { readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { BACKENDS } from '../../store/backends.js'
import {
  freePort,
  git,
  makeOrigin,
  processCommandLines,
  startHttpBackend,
  startSilentServer,
  tempDir,
} from '../git/fixtures.js'
import { startTestService, type TestService } from '../harness.js'

const PASSWORD = 'LEAKCANARY-http-password-9d2e'
const WRONG_PASSWORD = 'LEAKCANARY-wrong-password-41aa'
const CANARY = 'LEAKCANARY'

interface ErrorBody {
  code: string
  message: string
}

const sqlite = BACKENDS.find((b) => b.name === 'sqlite')!

/** Every ref of a bare repository with its commit: what "nothing was written" compares. */
function refsOf(bare: string): string {
  return git(bare, 'for-each-ref', '--format=%(refname) %(objectname)')
}

/** An origin hook that moves `main` under every push: each push loses the race. */
function alwaysRace(bare: string): void {
  writeFileSync(
    join(bare, 'hooks', 'pre-receive'),
    `#!/bin/sh
clean="env -u GIT_QUARANTINE_PATH -u GIT_OBJECT_DIRECTORY -u GIT_ALTERNATE_OBJECT_DIRECTORIES"
export GIT_AUTHOR_NAME=racer GIT_AUTHOR_EMAIL=racer@x GIT_COMMITTER_NAME=racer GIT_COMMITTER_EMAIL=racer@x
head=$($clean git rev-parse refs/heads/main)
racer=$($clean git commit-tree $($clean git rev-parse "$head^{tree}") -p "$head" -m racer)
$clean git update-ref refs/heads/main "$racer"
exit 0
`,
    { mode: 0o755 },
  )
}

describe('source-control endpoints (file:// and http-backend)', () => {
  const root = tempDir()
  const origin = makeOrigin(root, {
    'policies/a.rego': 'package a\n\nallow := true\n',
    'policies/data.json': '{"x": 1}\n',
    'policies/sub/c.rego': 'package sub.c\n',
    'README.md': 'outside the system folder\n',
    'evil/link.rego': { link: '../../../etc/passwd' },
    'bin/blob.rego': Buffer.from([0x70, 0x00, 0x01, 0x02]),
  })
  const url = `file://${origin.bare}`
  let t: TestService
  let http: Awaited<ReturnType<typeof startHttpBackend>>
  const seen: string[] = []

  const json = async <T = Record<string, unknown>>(
    method: string,
    path: string,
    options?: Parameters<TestService['json']>[2],
  ) => {
    const res = await t.json<T>(method, path, options)
    seen.push(JSON.stringify(res.body))
    return res
  }
  const system = async (id: string, originFields: Record<string, unknown>) => {
    const res = await json('PUT', `/v1/systems/${id}`, {
      body: { name: id, type: 'custom', source_control: { origin: originFields } },
      headers: { 'If-None-Match': '*' },
    })
    expect(res.status, JSON.stringify(res.body)).toBe(200)
  }
  const commit = (id: string, body: Record<string, unknown>) =>
    json<{ result: Record<string, unknown> } & ErrorBody>('POST', `/v1/systems/${id}/commits`, {
      body: {
        author: 'Ada',
        email: 'ada@example.com',
        message: 'change',
        files: {},
        files_to_delete: [],
        ...body,
      },
    })

  beforeAll(async () => {
    t = await startTestService(sqlite, '{git: {max_file_bytes: 1024}}')
    http = await startHttpBackend(root, [{ username: 'alice', password: PASSWORD }])
    for (const [id, name, secret] of [
      ['git/http', 'alice', PASSWORD],
      ['git/http-wrong', 'alice', WRONG_PASSWORD],
    ] as const) {
      const res = await json('PUT', `/v1/secrets/${id}`, { body: { name, description: '', secret } })
      expect(res.status).toBe(200)
    }
    await system('files', { url, reference: 'main', path: 'policies' })
  })
  afterAll(async () => {
    await t?.close()
    http?.server.close()
    rmSync(root, { recursive: true, force: true })
  })

  describe('verify-config', () => {
    const verify = (body: Record<string, unknown>) =>
      json<{ result: Record<string, unknown> } & ErrorBody>(
        'POST',
        '/v1/systems/source-control/verify-config',
        {
          body: { id: 'new-system', url, reference: '', commit: '', credentials: '', path: '', ...body },
        },
      )

    it('answers the head of the reference, or the pinned commit, as sha', async () => {
      const head = git(origin.bare, 'rev-parse', 'main')
      const byRef = await verify({ reference: 'main' })
      expect(byRef.status, JSON.stringify(byRef.body)).toBe(200)
      expect(byRef.body.result).toEqual({
        url,
        reference: 'main',
        commit: '',
        credentials: '',
        path: '',
        sha: head,
      })
      const byCommit = await verify({ commit: head })
      expect(byCommit.body.result).toMatchObject({ commit: head, sha: head })
    })

    it('refuses configs that cannot work, naming the field', async () => {
      const cases: Array<[Record<string, unknown>, number, RegExp]> = [
        [
          { reference: 'main', commit: git(origin.bare, 'rev-parse', 'main') },
          400,
          /^invalid .*commit: only one of reference or commit/,
        ],
        [{ id: undefined, reference: 'main' }, 400, /id: required/],
        [{ id: '../x', reference: 'main' }, 400, /invalid id/],
        [
          { reference: 'main', credentials: 'git/none' },
          400,
          /^credentials: secret "git\/none" does not exist/,
        ],
        [{ reference: 'no-such-branch' }, 404, /^reference: reference "no-such-branch" not found/],
        [{ commit: 'f'.repeat(40) }, 404, /^commit: commit f+ is not in the repository/],
        [{ reference: 'main~1' }, 400, /^reference: reference "main~1" is not valid/],
        [{ reference: 'main', path: '../outside' }, 400, /^path: .*leaves the repository/],
        [{ reference: 'main', path: 'nowhere' }, 404, /^path: path "nowhere" not found/],
        [{ reference: 'main', url: 'ftp://example.com/r.git' }, 400, /url/],
        [
          { reference: 'main', url: 'https://bob:secret@example.com/r.git' },
          400,
          /^url: .*carries credentials/,
        ],
        [{ reference: 'main', url: `file://${root}/absent.git` }, 502, /repository|not/],
      ]
      for (const [body, status, message] of cases) {
        const res = await verify(body)
        expect(res.status, `${JSON.stringify(body)} → ${JSON.stringify(res.body)}`).toBe(status)
        expect(res.body.message).toMatch(message)
      }
    })

    it('refuses a config another system already follows, unless it is the same system', async () => {
      const duplicate = await verify({ id: 'other', reference: 'main', path: 'policies/' })
      expect(duplicate.status).toBe(409)
      expect(duplicate.body.message).toMatch(/^id: system files already follows/)
      expect((await verify({ id: 'files', reference: 'main', path: 'policies' })).status).toBe(200)
      expect((await verify({ id: 'other', reference: 'main', path: 'policies/sub' })).status).toBe(200)
    })

    it('tells a refused git login apart from an unreachable server, without the password', async () => {
      const httpUrl = `http://127.0.0.1:${http.port}/repo.git`
      const good = await verify({ url: httpUrl, reference: 'main', credentials: 'git/http' })
      expect(good.status, JSON.stringify(good.body)).toBe(200)
      expect(good.body.result!.sha).toBe(git(origin.bare, 'rev-parse', 'main'))
      const refused = await verify({ url: httpUrl, reference: 'main', credentials: 'git/http-wrong' })
      expect(refused.status).toBe(401)
      expect(refused.body.code).toBe('git_auth_failed')
      const nobody = await verify({ url: `http://127.0.0.1:${await freePort()}/repo.git`, reference: 'main' })
      expect(nobody.status).toBe(502)
      expect(nobody.body.code).toBe('git_repository_unreachable')
    })
  })

  it('keeps the password off every command line and out of every environment while git runs', async () => {
    const slow = await startHttpBackend(root, [{ username: 'alice', password: PASSWORD }], 300)
    try {
      let done = false
      const verifying = t
        .json('POST', '/v1/systems/source-control/verify-config', {
          body: {
            id: 'slow',
            url: `http://127.0.0.1:${slow.port}/repo.git`,
            reference: 'main',
            commit: '',
            credentials: 'git/http',
            path: '',
          },
        })
        .finally(() => {
          done = true
        })
      let sawRemoteHelper = false
      for (let i = 0; i < 100 && !done; i++) {
        const lines = processCommandLines()
        if (lines.includes('remote-http')) sawRemoteHelper = true
        expect(lines).not.toContain(PASSWORD)
        for (const pid of readdirSync('/proc').filter((p) => /^\d+$/.test(p))) {
          let environ = ''
          try {
            environ = readFileSync(`/proc/${pid}/environ`, 'utf8')
          } catch {
            continue // gone, or not ours to read
          }
          expect(environ, `environment of ${pid}`).not.toContain(PASSWORD)
        }
        await new Promise((r) => setTimeout(r, 100))
      }
      expect((await verifying).status).toBe(200)
      expect(sawRemoteHelper).toBe(true)
    } finally {
      slow.server.close()
    }
  })

  describe('files, commits and branches', () => {
    it('answers the files under the folder at the reference', async () => {
      const res = await json<{ result: Record<string, unknown> }>('GET', '/v1/systems/files/master')
      expect(res.status).toBe(200)
      expect(res.body.result).toEqual({
        branch: 'main',
        files: {
          'a.rego': 'package a\n\nallow := true\n',
          'data.json': '{"x": 1}\n',
          'sub/c.rego': 'package sub.c\n',
        },
      })
    })

    it('commits to a new branch from the reference and round-trips it through master and branch', async () => {
      const base = git(origin.bare, 'rev-parse', 'main')
      const res = await commit('files', {
        branch: 'feature',
        message: 'add b, drop a',
        files: { 'b.rego': 'package b\n', 'sub/c.rego': 'package sub.c\n\nx := 1\n' },
        files_to_delete: ['a.rego'],
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      const sha = git(origin.bare, 'rev-parse', 'refs/heads/feature')
      expect(res.body.result).toEqual({
        branch: 'feature',
        author: 'Ada',
        email: 'ada@example.com',
        message: 'add b, drop a',
        files: { 'b.rego': 'package b\n', 'sub/c.rego': 'package sub.c\n\nx := 1\n' },
        files_to_delete: ['a.rego'],
        sha,
      })
      expect(git(origin.bare, 'rev-parse', `${sha}^`)).toBe(base)
      expect(git(origin.bare, 'log', '-1', '--format=%an <%ae> %s', sha)).toBe(
        'Ada <ada@example.com> add b, drop a',
      )
      expect(git(origin.bare, 'show', `${sha}:policies/b.rego`)).toBe('package b')
      expect(git(origin.bare, 'ls-tree', '-r', '--name-only', sha).split('\n')).not.toContain(
        'policies/a.rego',
      )
      expect(git(origin.bare, 'rev-parse', 'main')).toBe(base)

      const onBranch = await json<{ result: Record<string, unknown> }>(
        'GET',
        '/v1/systems/files/master?branch=feature',
      )
      expect(onBranch.body.result).toEqual({
        branch: 'feature',
        files: {
          'b.rego': 'package b\n',
          'data.json': '{"x": 1}\n',
          'sub/c.rego': 'package sub.c\n\nx := 1\n',
        },
        deleted_files: ['a.rego'],
      })
      const state = await json<{ result: Record<string, unknown> }>(
        'GET',
        '/v1/systems/files/branch?branch=feature',
      )
      expect(state.body.result).toEqual({
        branch: 'feature',
        commit: sha,
        files: { 'b.rego': 'package b\n', 'sub/c.rego': 'package sub.c\n\nx := 1\n' },
        changed_files: ['b.rego', 'sub/c.rego'],
        deleted_files: ['a.rego'],
      })

      // A second commit goes on top of the branch, not on the reference.
      const second = await commit('files', { branch: 'feature', files: { 'd.rego': 'package d\n' } })
      expect(second.status).toBe(200)
      expect(git(origin.bare, 'rev-parse', `${second.body.result.sha as string}^`)).toBe(sha)
    })

    it('reads and branches from the pinned commit of a system that pins one', async () => {
      const pinned = git(origin.bare, 'rev-parse', 'main')
      await system('pinned', { url, commit: pinned, path: 'policies' })
      origin.push({ 'policies/later.rego': 'package later\n' })
      const files = await json<{ result: Record<string, unknown> }>('GET', '/v1/systems/pinned/master')
      expect(files.status).toBe(200)
      expect(files.body.result).toEqual({
        files: {
          'a.rego': 'package a\n\nallow := true\n',
          'data.json': '{"x": 1}\n',
          'sub/c.rego': 'package sub.c\n',
        },
      })
      const res = await commit('pinned', { branch: 'from-pin', files: { 'p.rego': 'package p\n' } })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(git(origin.bare, 'rev-parse', `${res.body.result.sha as string}^`)).toBe(pinned)
      // Nothing to refuse deleting: a pinned system follows no branch.
      expect((await json('DELETE', '/v1/systems/pinned/branch?branch=from-pin')).status).toBe(200)
    })

    it('deletes a proposal branch but not the branch the system follows', async () => {
      const deleted = await json('DELETE', '/v1/systems/files/branch?branch=feature')
      expect(deleted.status).toBe(200)
      expect(deleted.body).toEqual({ request_id: expect.any(String) })
      expect(refsOf(origin.bare)).not.toContain('refs/heads/feature')
      expect((await json<ErrorBody>('GET', '/v1/systems/files/branch?branch=feature')).status).toBe(404)
      expect((await json<ErrorBody>('DELETE', '/v1/systems/files/branch?branch=feature')).status).toBe(404)
      const followed = await json<ErrorBody>('DELETE', '/v1/systems/files/branch?branch=main')
      expect(followed.status).toBe(409)
      expect(followed.body.message).toMatch(/^branch: main is the branch the system follows/)
      expect(refsOf(origin.bare)).toContain('refs/heads/main')
      expect((await json<ErrorBody>('GET', '/v1/systems/files/branch')).status).toBe(400)
    })

    it('refuses bad commits with a 4xx naming the field, and writes nothing', async () => {
      const before = refsOf(origin.bare)
      const cases: Array<[Record<string, unknown>, number, RegExp]> = [
        [
          { branch: 'x', files: { '../escape.rego': 'p' } },
          400,
          /^files\.\.\.\/escape\.rego: .*leaves the repository/,
        ],
        [{ branch: 'x', files: { '/etc/x.rego': 'p' } }, 400, /^files\.\/etc\/x\.rego: .*absolute/],
        [{ branch: 'x', files: { '.git/config': 'p' } }, 400, /^files\.\.git\/config: /],
        [{ branch: 'x', files_to_delete: ['../README.md'] }, 400, /^files_to_delete\.0: /],
        [{ branch: 'x', files: { 'bin.rego': 'a\u0000b' } }, 400, /^files\.bin\.rego: the content is binary/],
        [
          { branch: 'x', files: { 'big.rego': 'x'.repeat(2000) } },
          413,
          /^files\.big\.rego: 2000 bytes, over the limit of 1024/,
        ],
        [
          { branch: 'x', files: { 'n.rego': 3 } },
          400,
          /files\.n\.rego: expected the file content as a string/,
        ],
        [
          { branch: 'x', author: undefined, files: { 'a.rego': 'p' } },
          400,
          /author: expected the author name/,
        ],
        [{ branch: 'x', author: '  ', files: { 'a.rego': 'p' } }, 400, /^author: /],
        [{ branch: 'x', email: 'a <b>', files: { 'a.rego': 'p' } }, 400, /^email: /],
        [{ branch: 'x', message: '', files: { 'a.rego': 'p' } }, 400, /^message: /],
        [{ branch: 'bad..name', files: { 'a.rego': 'p' } }, 400, /^branch: /],
        [{ branch: undefined, files: { 'a.rego': 'p' } }, 400, /branch: expected the branch/],
        [{ branch: 'x' }, 400, /^files: nothing to commit/],
        [{ branch: 'x', files: { 'a.rego/b.rego': 'p' } }, 400, /replace|clashes/],
        [{ branch: 'x', files: { 'a.rego': 'p' }, extra: 1 }, 400, /unknown field extra/],
      ]
      for (const [body, status, message] of cases) {
        const res = await commit('files', body)
        expect(res.status, `${JSON.stringify(body)} → ${JSON.stringify(res.body)}`).toBe(status)
        expect(res.body.message).toMatch(message)
      }
      expect((await commit('no-such-system', { branch: 'x', files: { 'a.rego': 'p' } })).status).toBe(404)
      await system('plain', { url: 'file:///nowhere/at/all.git', reference: 'main' })
      const unreachable = await commit('plain', { branch: 'x', files: { 'a.rego': 'p' } })
      expect(unreachable.status).toBe(502)
      const noSource = await json('PUT', '/v1/systems/nosource', {
        body: { name: 'nosource', type: 'custom' },
        headers: { 'If-None-Match': '*' },
      })
      expect(noSource.status).toBe(200)
      const refused = await commit('nosource', { branch: 'x', files: { 'a.rego': 'p' } })
      expect(refused.status).toBe(400)
      expect(refused.body.message).toMatch(/^source_control: system nosource has no source_control\.origin/)
      expect(refsOf(origin.bare)).toBe(before)
    })

    it('refuses to read symlinks leaving the folder and binary files', async () => {
      await system('evil', { url, reference: 'main', path: 'evil' })
      const link = await json<ErrorBody>('GET', '/v1/systems/evil/master')
      expect(link.status).toBe(400)
      expect(link.body.message).toMatch(/^path: symlink "link\.rego" points outside/)
      // Writing through the symlink would replace it by a folder: refused, nothing pushed.
      const before = refsOf(origin.bare)
      const through = await commit('evil', { branch: 'main', files: { 'link.rego/x.rego': 'p' } })
      expect(through.status).toBe(400)
      expect(through.body.code).toBe('git_invalid_input')
      expect(refsOf(origin.bare)).toBe(before)
      await system('binary', { url, reference: 'main', path: 'bin' })
      const binary = await json<ErrorBody>('GET', '/v1/systems/binary/master')
      expect(binary.status).toBe(400)
      expect(binary.body.message).toMatch(/^path: file "blob\.rego" is binary/)
    })

    it('serialises concurrent commits to one branch: every one lands, one after the other', async () => {
      const results = await Promise.all(
        Array.from({ length: 4 }, (_, i) =>
          commit('files', {
            branch: 'busy',
            message: `c${i}`,
            files: { [`busy/${i}.rego`]: `package busy.c${i}\n` },
          }),
        ),
      )
      for (const res of results) expect(res.status, JSON.stringify(res.body)).toBe(200)
      const head = git(origin.bare, 'rev-parse', 'refs/heads/busy')
      const history = git(origin.bare, 'log', '--format=%s', `main..${head}`).split('\n')
      expect(history.sort()).toEqual(['c0', 'c1', 'c2', 'c3'])
      const files = git(origin.bare, 'ls-tree', '-r', '--name-only', head, 'policies/busy').split('\n')
      expect(files).toEqual([0, 1, 2, 3].map((i) => `policies/busy/${i}.rego`))
    })

    it('answers 409 when the branch keeps moving under the push (after one retry)', async () => {
      const racy = makeOrigin(root, { 'p/a.rego': 'package a\n' }, 'racy')
      await system('racy', { url: `file://${racy.bare}`, reference: 'main', path: 'p' })
      alwaysRace(racy.bare)
      const res = await commit('racy', {
        branch: 'main',
        message: 'raced',
        files: { 'b.rego': 'package b\n' },
      })
      expect(res.status).toBe(409)
      expect(res.body.code).toBe('git_conflict')
      expect(res.body.message).toMatch(/^branch: branch main moved while committing, twice/)
      expect(git(racy.bare, 'log', '--format=%s', 'main').split('\n')).not.toContain('raced')
    })

    it('commits over http with the login from a secret', async () => {
      await system('over-http', {
        url: `http://127.0.0.1:${http.port}/repo.git`,
        reference: 'main',
        path: 'policies',
        credentials: 'git/http',
      })
      const res = await commit('over-http', { branch: 'from-http', files: { 'h.rego': 'package h\n' } })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      expect(git(origin.bare, 'show', 'refs/heads/from-http:policies/h.rego')).toBe('package h')
      const files = await json<{ result: { files: Record<string, string> } }>(
        'GET',
        '/v1/systems/over-http/master?branch=from-http',
      )
      expect(files.body.result.files['h.rego']).toBe('package h\n')
    })
  })

  it('lets a policy editor of the system read and commit, but not verify configs; others not at all', async () => {
    const token = async (id: string) =>
      (await json<{ result: string }>('PUT', `/v1/tokens/${id}`, { body: { description: id } })).body.result
    const editor = await token('editor')
    const stranger = await token('stranger')
    const grant = await json('PUT', '/v1/authz/rolebindings/systems/files/policy-editors', {
      body: { id: 'policy-editors', role_name: 'policy-editor', subjects: ['token:editor'] },
    })
    expect(grant.status).toBe(200)
    const as = (tokenValue: string, method: string, path: string, body?: unknown) =>
      t.json<ErrorBody>(method, path, { token: tokenValue, ...(body === undefined ? {} : { body }) })
    const change = {
      branch: 'by-editor',
      author: 'E',
      email: 'e@x',
      message: 'edit',
      files: { 'e.rego': 'package e\n' },
      files_to_delete: [],
    }
    expect((await as(editor, 'GET', '/v1/systems/files/master')).status).toBe(200)
    expect((await as(editor, 'POST', '/v1/systems/files/commits', change)).status).toBe(200)
    expect((await as(editor, 'GET', '/v1/systems/files/branch?branch=by-editor')).status).toBe(200)
    expect((await as(editor, 'DELETE', '/v1/systems/files/branch?branch=by-editor')).status).toBe(200)
    const verify = { id: 'x', url, reference: 'main', commit: '', credentials: '', path: 'policies/sub' }
    expect((await as(editor, 'POST', '/v1/systems/source-control/verify-config', verify)).status).toBe(403)
    // Another system's repository is not the editor's.
    expect((await as(editor, 'GET', '/v1/systems/evil/master')).status).toBe(403)
    for (const [method, path, body] of [
      ['GET', '/v1/systems/files/master', undefined],
      ['POST', '/v1/systems/files/commits', { ...change, branch: 'by-stranger' }],
      ['GET', '/v1/systems/files/branch?branch=main', undefined],
      ['DELETE', '/v1/systems/files/branch?branch=busy', undefined],
    ] as const) {
      expect((await as(stranger, method, path, body)).status, `${method} ${path}`).toBe(403)
    }
    expect(refsOf(origin.bare)).not.toContain('by-stranger')
    expect(refsOf(origin.bare)).toContain('refs/heads/busy')
  })

  it('answers 504 when the repository does not answer within service.git.timeout', async () => {
    const silent = await startSilentServer()
    const slow = await startTestService(sqlite, '{git: {timeout: 1s}}')
    try {
      const res = await slow.json<ErrorBody>('POST', '/v1/systems/source-control/verify-config', {
        body: {
          id: 's',
          url: `http://127.0.0.1:${silent.port}/r.git`,
          reference: 'main',
          commit: '',
          credentials: '',
          path: '',
        },
      })
      expect(res.status).toBe(504)
      expect(res.body.code).toBe('git_timeout')
    } finally {
      silent.close()
      await slow.close()
    }
  })

  it('never shows a credential value: responses, logs, activity records, database files', async () => {
    const activity = await json<{ results: unknown[] }>('GET', '/v2/activity?limit=1000')
    expect(activity.status).toBe(200)
    expect(JSON.stringify(activity.body)).toContain('/v1/systems/source-control/verify-config')
    const database = t.service.store.location
    const files = [database, `${database}-wal`].map((f) => {
      try {
        return readFileSync(f).toString('latin1')
      } catch {
        return ''
      }
    })
    for (const text of [...seen, ...t.logs, ...files]) expect(text).not.toContain(CANARY)
  })
})
