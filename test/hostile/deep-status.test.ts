/**
 * Hostile: a deeply nested status report. The relay used to accept a 100,000-deep report with
 * 200; every forward then failed with a stack overflow, and since the forwarder stopped at the
 * first failure, no agent's status reached the upstream again. Now the report is refused at
 * intake (the decision events' depth limit), and forwarding goes on for everyone else.
 */
import { gzipSync } from 'node:zlib'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { RunningRelay } from '../../relay/relay.js'
import { eventually, relayConfig, startTestRelay, tempDir } from '../relay/helpers.js'
import { type RegentProcess, startRegent } from '../relay/support/processes.js'
import { type FaultUpstream, startFaultUpstream } from '../support/fault-upstream.js'

const DEPTH = 100_000
const labelsOf = (body: unknown) => (body as { labels: { id: string } }).labels.id

describe('a 100,000-deep status report', () => {
  let upstream: FaultUpstream
  let relay: RunningRelay
  let dir: Awaited<ReturnType<typeof tempDir>>

  beforeAll(async () => {
    upstream = await startFaultUpstream()
    dir = await tempDir()
    relay = await startTestRelay(
      relayConfig(`
services: { up: { url: "${upstream.url}/v1" } }
status: { service: up }
relay: { status: { forward_interval_seconds: 1 } }
`),
      dir.dir,
    )
  })
  afterAll(async () => {
    await relay?.stop()
    await upstream?.stop()
    await dir?.cleanup()
  })

  const post = async (body: string | Buffer, headers: Record<string, string> = {}) => {
    const res = await request(`${relay.url}/v1/status`, {
      method: 'POST',
      body,
      headers: { 'Content-Type': 'application/json', ...headers },
    })
    return { status: res.statusCode, text: await res.body.text() }
  }

  it('is refused at intake, plain or gzip, in arrays or objects; status forwarding keeps working for others', async () => {
    const arrays = `{"labels":{"id":"attacker"},"x":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}`
    const objects = `{"labels":{"id":"attacker"},"x":${'{"a":'.repeat(DEPTH)}1${'}'.repeat(DEPTH)}}`
    for (const [body, headers] of [
      [arrays, {}],
      [objects, {}],
      [gzipSync(arrays), { 'Content-Encoding': 'gzip' }],
    ] as const) {
      const res = await post(body, headers)
      expect(res.status).toBe(400)
      expect(JSON.parse(res.text)).toMatchObject({
        message: expect.stringMatching(/^status report nests deeper than 1000 levels \(at character \d+\)$/),
      })
    }
    const view = (await (await request(`${relay.url}/v1/relay/status`)).body.json()) as {
      agents: { count: number }
    }
    expect(view.agents.count).toBe(0)

    // Reports of other agents, before and after, reach the upstream.
    for (const id of ['agent-1', 'agent-2']) {
      const res = await post(JSON.stringify({ labels: { id }, plugins: { bundle: { state: 'OK' } } }))
      expect(res.status).toBe(200)
    }
    await eventually(
      () => ['agent-1', 'agent-2'].every((id) => upstream.statusPosts.some((p) => labelsOf(p.body) === id)),
      10_000,
      'the other agents forwarded',
    )
    expect(upstream.statusPosts.some((p) => labelsOf(p.body) === 'attacker')).toBe(false)
  })
})

describe('a 100,000-deep status report sent straight to the service', () => {
  const ADMIN = 'hostile-deep-status-admin-token-0123'
  let dir: Awaited<ReturnType<typeof tempDir>>
  let service: RegentProcess

  beforeAll(async () => {
    dir = await tempDir()
    service = await startRegent(['service', '--addr', '127.0.0.1:0', '--data-dir', dir.dir], {
      REGENT_ADMIN_TOKEN: ADMIN,
    })
  }, 30_000)
  afterAll(async () => {
    await service?.stop()
    await dir?.cleanup()
  })

  it('is refused with 400 naming the depth, and the service keeps taking reports', async () => {
    const post = async (body: string) => {
      const res = await request(`${service.url}/v1/status`, {
        method: 'POST',
        body,
        headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' },
      })
      return { status: res.statusCode, text: await res.body.text() }
    }
    const deep = `{"labels":{"id":"attacker"},"x":${'['.repeat(DEPTH)}${']'.repeat(DEPTH)}}`
    const refused = await post(deep)
    expect(refused.status).toBe(400)
    expect(JSON.parse(refused.text).message).toMatch(/^status report nests deeper than 1000 levels/)
    expect((await post(JSON.stringify({ labels: { id: 'agent-1' } }))).status).toBe(200)
  })
})
