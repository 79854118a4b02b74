/**
 * Git-backed systems over network transports, with credentials from the service's secrets:
 * `git http-backend` with basic auth (the `credentials` secret's name is the username and its value
 * the password; a secret without a name is a token, as the source-control endpoints read it) and `git daemon` for git://. Wrong or missing credentials are a status, never Ready, and
 * their values appear in no answer or log line.
 */
import type { ChildProcess } from 'node:child_process'
import { rmSync } from 'node:fs'
import type { Server } from 'node:http'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readBundle } from '../../../core/bundle/index.js'
import { BACKENDS } from '../../store/backends.js'
import {
  git,
  makeOrigin,
  type Origin,
  startGitDaemon,
  startHttpBackend,
  stop,
  tempDir,
} from '../git/fixtures.js'
import { startTestService, type TestService } from '../harness.js'

const sqlite = BACKENDS.find((b) => b.name === 'sqlite')!
const PASSWORD = 'pw-9f3c1a7e5b'
const TOKEN = 'tok-5e8d2b4c6a'

interface SystemView {
  id: string
  status: string
  errors: { bundle?: { errors: Array<{ message: string }> } }
}

describe('git-backed systems over http and git://', () => {
  let t: TestService
  let root: string
  let origin: Origin
  let http: { port: number; server: Server }
  let daemon: { port: number; child: ChildProcess }
  let basicId: string

  const putSecret = (id: string, secret: string, name = '') =>
    t.json('PUT', `/v1/secrets/${id}`, { body: { name, description: '', secret } })
  const createSystem = async (name: string, url: string, credentials = '') =>
    t.json<{ result: SystemView }>('POST', '/v1/systems', {
      body: {
        name,
        type: 'custom',
        source_control: { origin: { url, reference: 'main', commit: '', path: 'policy', credentials } },
      },
    })
  const revision = async (id: string) =>
    (await readBundle(new Uint8Array(await (await t.call('GET', `/v1/bundles/systems/${id}`)).arrayBuffer())))
      .manifest.revision ?? ''

  beforeAll(async () => {
    root = tempDir()
    origin = makeOrigin(root, { 'policy/p.rego': 'package p\n\nx := 1\n' })
    http = await startHttpBackend(root, [
      { username: 'alice', password: PASSWORD },
      { username: 'x-access-token', password: TOKEN },
    ])
    daemon = await startGitDaemon(root)
    t = await startTestService(sqlite, '{git: {poll_interval: "0", timeout: "20s"}}')
  })
  afterAll(async () => {
    await t?.close()
    http?.server.close()
    stop(daemon?.child)
    rmSync(root, { recursive: true, force: true })
  })

  it('fetches over http with basic credentials from a secret, and with a token', async () => {
    expect((await putSecret('git/http/alice', PASSWORD, 'alice')).status).toBe(200)
    const basic = await createSystem('basic', `http://127.0.0.1:${http.port}/repo.git`, 'git/http/alice')
    expect(basic.body.result.status).toBe('Ready')
    basicId = basic.body.result.id
    expect(await revision(basicId)).toMatch(new RegExp(`^${git(origin.bare, 'rev-parse', 'main')}-`))
    expect((await putSecret('git/http/token', TOKEN)).status).toBe(200)
    const token = await createSystem('token', `http://127.0.0.1:${http.port}/repo.git`, 'git/http/token')
    expect(token.body.result.status).toBe('Ready')
  })

  it('reports refused credentials as SourceControlFailed and keeps the last good bundle', async () => {
    expect((await putSecret('git/http/bob', 'wrong-password', 'bob')).status).toBe(200)
    const refused = await createSystem('refused', `http://127.0.0.1:${http.port}/repo.git`, 'git/http/bob')
    expect(refused.body.result.status).toBe('SourceControlFailed')
    expect(refused.body.result.errors.bundle?.errors[0]?.message).toMatch(/^auth_failed: /)

    // A good system whose secret goes bad: the bundle of its last good commit stays served.
    const id = basicId
    const good = await revision(id)
    expect((await putSecret('git/http/alice', 'not-it', 'alice')).status).toBe(200)
    const sync = await t.json<{ result: { status: string; error: { code: string } } }>(
      'POST',
      `/v1/systems/${id}/source-control/sync`,
    )
    expect(sync.body.result).toMatchObject({ status: 'SourceControlFailed', error: { code: 'auth_failed' } })
    expect(await revision(id)).toBe(good)
  })

  it('is not Ready when a secret it names is gone', async () => {
    expect((await putSecret('git/http/carol', PASSWORD, 'alice')).status).toBe(200)
    const made = await createSystem('carol', `http://127.0.0.1:${http.port}/repo.git`, 'git/http/carol')
    expect(made.body.result.status).toBe('Ready')
    // The API refuses to delete a secret a system names; the store is where it can still vanish.
    expect((await t.json('DELETE', '/v1/secrets/git/http/carol')).status).toBe(409)
    await t.service.store.secrets.delete('git/http/carol')
    const sync = await t.json<{ result: { status: string; errors: string[] } }>(
      'POST',
      `/v1/systems/${made.body.result.id}/source-control/sync`,
    )
    expect(sync.body.result.status).toBe('SourceControlFailed')
    expect(sync.body.result.errors.join('\n')).toMatch(/missing_secret: .*git\/http\/carol/)
  })

  it('fetches over git:// from git daemon', async () => {
    const commit = origin.push({ 'policy/p.rego': 'package p\n\nx := 2\n' })
    const made = await createSystem('daemon', `git://127.0.0.1:${daemon.port}/repo.git`)
    expect(made.body.result.status).toBe('Ready')
    expect(await revision(made.body.result.id)).toMatch(new RegExp(`^${commit}-`))
  })

  it('never shows a credential value in answers or logs', async () => {
    const everything = JSON.stringify((await t.json('GET', '/v1/systems')).body) + t.logs.join('\n')
    for (const value of [PASSWORD, TOKEN, 'wrong-password', 'not-it']) expect(everything).not.toContain(value)
  })
})
