/**
 * How a push reaches a git-backed system without anyone calling sync: GitHub and GitLab push
 * webhooks checked against the shared secret (no bearer token), and polling on an interval.
 */
import { createHmac } from 'node:crypto'
import { rmSync } from 'node:fs'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readBundle } from '../../../core/bundle/index.js'
import { BACKENDS } from '../../store/backends.js'
import { makeOrigin, type Origin, tempDir } from '../git/fixtures.js'
import { startTestService, type TestService } from '../harness.js'

const SECRET = 'webhook-shared-secret-0123456789'
const sqlite = BACKENDS.find((b) => b.name === 'sqlite')!

async function createGitSystem(t: TestService, origin: Origin): Promise<string> {
  const created = await t.json<{ result: { id: string; status: string } }>('POST', '/v1/systems', {
    body: {
      name: 'hooked',
      type: 'custom',
      source_control: {
        origin: { url: `file://${origin.bare}`, reference: 'main', commit: '', path: '', credentials: '' },
      },
    },
  })
  expect(created.body.result.status).toBe('Ready')
  return created.body.result.id
}

/** The revision served to agents, polled until `done` holds (bounded: the sync runs in the background). */
async function waitForRevision(
  t: TestService,
  id: string,
  done: (revision: string) => boolean,
): Promise<string> {
  let revision = ''
  for (let i = 0; i < 300; i++) {
    const bytes = new Uint8Array(await (await t.call('GET', `/v1/bundles/systems/${id}`)).arrayBuffer())
    revision = (await readBundle(bytes)).manifest.revision ?? ''
    if (done(revision)) return revision
    await new Promise((r) => setTimeout(r, 100))
  }
  return revision
}

describe('push webhooks', () => {
  let t: TestService
  let root: string
  let origin: Origin
  let id: string
  const hook = (headers: Record<string, string>, body: string) =>
    t.json<{ message?: string; result?: Record<string, unknown> }>(
      'POST',
      `/v1/systems/${id}/source-control/webhook`,
      { token: null, raw: body, headers: { 'Content-Type': 'application/json', ...headers } },
    )
  const github = (event: string, body: string, secret = SECRET) => ({
    'X-GitHub-Event': event,
    'X-Hub-Signature-256': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
  })

  beforeAll(async () => {
    root = tempDir()
    origin = makeOrigin(root, { 'p.rego': 'package p\n\nx := 1\n' })
    t = await startTestService(sqlite, `{git: {poll_interval: "0", webhook_secret: "${SECRET}"}}`)
    id = await createGitSystem(t, origin)
  })
  afterAll(async () => {
    await t?.close()
    rmSync(root, { recursive: true, force: true })
  })

  it('refuses requests without a valid signature or token, with or without a bearer token', async () => {
    const body = '{"ref":"refs/heads/main"}'
    const none = await hook({}, body)
    expect(none.status).toBe(401)
    expect(none.body.message).toMatch(/X-Hub-Signature-256 .* or X-Gitlab-Token/)
    expect((await hook(github('push', body, 'another-secret-0123456789'), body)).status).toBe(401)
    // A signature over another body: the body was changed on the way.
    expect((await hook(github('push', '{}'), body)).status).toBe(401)
    expect((await hook({ 'X-Hub-Signature-256': 'sha256=zz' }, body)).body.message).toMatch(/64 hex digits/)
    expect((await hook({ 'X-Gitlab-Token': 'wrong', 'X-Gitlab-Event': 'Push Hook' }, body)).status).toBe(401)
    // A bearer token does not stand in for the secret.
    const withToken = await t.json('POST', `/v1/systems/${id}/source-control/webhook`, { raw: body })
    expect(withToken.status).toBe(401)
  })

  it('syncs on a signed GitHub push, ignores other events', async () => {
    const ping = '{"zen":"hello"}'
    const pinged = await hook(github('ping', ping), ping)
    expect(pinged.status).toBe(200)
    expect(pinged.body.result).toEqual({ provider: 'github', event: 'ping', sync: 'ignored' })
    const commit = origin.push({ 'p.rego': 'package p\n\nx := 2\n' })
    const body = JSON.stringify({ ref: 'refs/heads/main', after: commit })
    const pushed = await hook(github('push', body), body)
    expect(pushed.status).toBe(202)
    expect(pushed.body.result).toEqual({ provider: 'github', event: 'push', sync: 'started' })
    expect(await waitForRevision(t, id, (r) => r.startsWith(commit))).toMatch(new RegExp(`^${commit}-`))
  })

  it('syncs on a GitLab push with the right token', async () => {
    const commit = origin.push({ 'p.rego': 'package p\n\nx := 3\n' })
    const body = JSON.stringify({ object_kind: 'push', after: commit })
    const pushed = await hook({ 'X-Gitlab-Token': SECRET, 'X-Gitlab-Event': 'Push Hook' }, body)
    expect(pushed.status).toBe(202)
    expect(await waitForRevision(t, id, (r) => r.startsWith(commit))).toMatch(new RegExp(`^${commit}-`))
  })

  it('refuses a body over 1 MiB with 413 before reading it all', async () => {
    const body = `{"pad":"${'x'.repeat(2 * 1024 * 1024)}"}`
    const res = await hook(github('push', body), body)
    expect(res.status).toBe(413)
  })

  it('syncs once more after a burst of pushes and ends on the last commit', async () => {
    let last = ''
    const sent: Array<Promise<unknown>> = []
    for (let i = 0; i < 5; i++) {
      last = origin.push({ 'p.rego': `package p\n\nx := ${10 + i}\n` })
      const body = JSON.stringify({ after: last })
      sent.push(hook(github('push', body), body))
    }
    for (const res of await Promise.all(sent)) expect((res as { status: number }).status).toBe(202)
    expect(await waitForRevision(t, id, (r) => r.startsWith(last))).toMatch(new RegExp(`^${last}-`))
    expect((await t.service.store.gitSync.get(id))?.commit_sha).toBe(last)
  })

  it('answers 404 for an unknown system once the signature holds', async () => {
    const body = '{}'
    const res = await t.json('POST', '/v1/systems/unknown/source-control/webhook', {
      token: null,
      raw: body,
      headers: github('push', body),
    })
    expect(res.status).toBe(404)
  })
})

describe('polling', () => {
  let t: TestService
  let root: string

  beforeAll(async () => {
    root = tempDir()
    t = await startTestService(sqlite, '{git: {poll_interval: "1s"}}')
  })
  afterAll(async () => {
    await t?.close()
    rmSync(root, { recursive: true, force: true })
  })

  it('takes a pushed commit on the next poll, and has no webhook without a secret', async () => {
    const origin = makeOrigin(root, { 'p.rego': 'package p\n\nx := 1\n' })
    const id = await createGitSystem(t, origin)
    const commit = origin.push({ 'p.rego': 'package p\n\nx := 2\n' })
    expect(await waitForRevision(t, id, (r) => r.startsWith(commit))).toMatch(new RegExp(`^${commit}-`))
    const hook = await t.json<{ message: string }>('POST', `/v1/systems/${id}/source-control/webhook`, {
      token: null,
      raw: '{}',
    })
    expect(hook.status).toBe(404)
    expect(hook.body.message).toMatch(/service\.git\.webhook_secret/)

    // Polls that find nothing new fetch but do not rebuild: the content version stays put.
    const version = (await t.service.store.systems.get(id))!.content_version
    const attempts = new Set<string>()
    for (let i = 0; i < 100 && attempts.size < 3; i++) {
      attempts.add((await t.service.store.gitSync.get(id))!.attempted_at!)
      await new Promise((r) => setTimeout(r, 100))
    }
    expect(attempts.size).toBe(3)
    expect((await t.service.store.systems.get(id))!.content_version).toBe(version)
  })
})
