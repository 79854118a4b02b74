/**
 * The git layer over the network transports without ssh: `git daemon` for git:// and
 * `git http-backend` behind a CGI bridge with basic auth for http(s)-style credentials (plain
 * http on loopback; git hands credentials to the transport the same way over TLS).
 */

import type { ChildProcess } from 'node:child_process'
import { readdirSync, readFileSync, rmSync } from 'node:fs'
import type { Server } from 'node:http'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  commitFiles,
  GitError,
  type GitErrorCode,
  mirror,
  readTree,
  resolveReference,
} from '../../../service/git/index.js'
import {
  git,
  makeOrigin,
  type Origin,
  processCommandLines,
  startGitDaemon,
  startHttpBackend,
  startSilentServer,
  stop,
  tempDir,
} from './fixtures.js'

async function expectCode(promise: Promise<unknown>, code: GitErrorCode): Promise<GitError> {
  const error = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(error).toBeInstanceOf(GitError)
  expect((error as GitError).code, (error as GitError).message).toBe(code)
  return error as GitError
}

const PASSWORD = 'pw-Zq81-never-shown'
const TOKEN = 'tok-Hx27-never-shown'

let root: string
let origin: Origin
let daemon: { port: number; child: ChildProcess }
let http: { port: number; server: Server; requests: string[] }
let slowHttp: { port: number; server: Server; requests: string[] }

beforeAll(async () => {
  root = tempDir()
  origin = makeOrigin(root, { 'policies/a.rego': 'package a\n' })
  daemon = await startGitDaemon(root)
  const logins = [
    { username: 'alice', password: PASSWORD },
    { username: 'x-access-token', password: TOKEN },
  ]
  http = await startHttpBackend(root, logins)
  slowHttp = await startHttpBackend(root, logins, 600)
})

afterAll(() => {
  stop(daemon?.child)
  http?.server.close()
  slowHttp?.server.close()
  rmSync(root, { recursive: true, force: true })
})

describe('git:// (git daemon)', () => {
  it('mirrors, reads and pushes a commit', async () => {
    const repo = await mirror(`git://127.0.0.1:${daemon.port}/repo.git`, undefined, {
      dataDir: join(root, 'd1'),
    })
    const { commit } = await resolveReference(repo, 'main')
    expect((await readTree(repo, commit, 'policies')).files).toEqual({ 'a.rego': 'package a\n' })
    const pushed = await commitFiles(repo, {
      branch: 'from-daemon',
      base: 'main',
      files: { 'policies/b.rego': 'package b\n' },
      filesToDelete: [],
      author: 'D',
      email: 'd@x',
      message: 'over git://',
    })
    expect(git(origin.bare, 'rev-parse', 'refs/heads/from-daemon')).toBe(pushed.commit)
  })

  it('reports an unknown repository as unreachable', async () => {
    await expectCode(
      mirror(`git://127.0.0.1:${daemon.port}/nope.git`, undefined, { dataDir: join(root, 'd2') }),
      'repository_unreachable',
    )
  })

  it('stops a hanging fetch at the time limit and leaves no process behind', async () => {
    const silent = await startSilentServer()
    try {
      const dataDir = join(root, 'd3')
      const started = Date.now()
      const error = await expectCode(
        mirror(`git://127.0.0.1:${silent.port}/r.git`, undefined, { dataDir, timeoutMs: 800 }),
        'timeout',
      )
      expect(Date.now() - started).toBeLessThan(10_000)
      expect(error.message).toContain('800 ms')
      expect(processCommandLines()).not.toContain(`127.0.0.1:${silent.port}/`)
      expect(readdirSync(join(dataDir, 'git-mirrors'))).toEqual([])
    } finally {
      silent.close()
    }
  })
})

describe('http(s):// with basic and token credentials (git http-backend)', () => {
  const url = () => `http://127.0.0.1:${http.port}/repo.git`

  it('fetches with a basic login and with a token, and pushes', async () => {
    const basic = await mirror(
      url(),
      { http: { kind: 'basic', username: 'alice', password: PASSWORD } },
      { dataDir: join(root, 'h1') },
    )
    expect((await resolveReference(basic, 'main')).commit).toBe(git(origin.bare, 'rev-parse', 'main'))
    const token = await mirror(
      url(),
      { http: { kind: 'token', token: TOKEN } },
      { dataDir: join(root, 'h2') },
    )
    const pushed = await commitFiles(token, {
      branch: 'from-http',
      base: 'main',
      files: { 'policies/h.rego': 'package h\n' },
      filesToDelete: [],
      author: 'H',
      email: 'h@x',
      message: 'over http',
    })
    expect(git(origin.bare, 'rev-parse', 'refs/heads/from-http')).toBe(pushed.commit)
  })

  it('reports a wrong or missing login as auth_failed without the secret in the message', async () => {
    const wrong = await expectCode(
      mirror(
        url(),
        { http: { kind: 'basic', username: 'alice', password: `${PASSWORD}-wrong` } },
        { dataDir: join(root, 'h3') },
      ),
      'auth_failed',
    )
    expect(wrong.message).not.toContain(PASSWORD)
    await expectCode(mirror(url(), undefined, { dataDir: join(root, 'h4') }), 'auth_failed')
  })

  it('reports a missing repository as unreachable', async () => {
    await expectCode(
      mirror(
        `http://127.0.0.1:${http.port}/nope.git`,
        { http: { kind: 'token', token: TOKEN } },
        { dataDir: join(root, 'h5') },
      ),
      'repository_unreachable',
    )
  })

  it('keeps credentials off every command line and out of every environment while a fetch runs', async () => {
    const fetching = mirror(
      `http://127.0.0.1:${slowHttp.port}/repo.git`,
      { http: { kind: 'basic', username: 'alice', password: PASSWORD } },
      { dataDir: join(root, 'h6') },
    )
    let done = false
    void fetching.finally(() => {
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
    await fetching
    expect(sawRemoteHelper).toBe(true)
  })
})
