import { gzipSync } from 'node:zlib'
import { request } from 'undici'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { RunningRelay } from '../../../relay/relay.js'
import { type FaultUpstream, makeBundle, startFaultUpstream } from '../../support/fault-upstream.js'
import { eventually, relayConfig, startTestRelay, tempDir } from '../helpers.js'

const post = (url: string, body: unknown) =>
  request(url, {
    method: 'POST',
    body: JSON.stringify(body),
    headers: { 'Content-Type': 'application/json' },
  })

describe('status intake and forwarding', () => {
  let upstream: FaultUpstream
  let relay: RunningRelay | undefined
  let dir: Awaited<ReturnType<typeof tempDir>>
  beforeEach(async () => {
    upstream = await startFaultUpstream()
    upstream.setBundle('/v1/bundles/authz', await makeBundle({ revision: 'r1' }), '"e1"')
    dir = await tempDir()
    relay = await startTestRelay(
      relayConfig(`
services: { up: { url: "${upstream.url}/v1" } }
bundles: { authz: { polling: { min_delay_seconds: 1, max_delay_seconds: 1 } } }
status: { service: up }
labels: { region: eu-1 }
relay: { status: { forward_interval_seconds: 1, max_body_bytes: 65536, max_decompressed_bytes: 131072 } }
`),
      dir.dir,
    )
  })
  afterEach(async () => {
    await relay?.stop()
    relay = undefined
    await upstream.stop()
    await dir.cleanup()
  })

  it('keeps the latest report per agent and forwards only that, coalesced, to the same partition', async () => {
    for (let i = 1; i <= 5; i++) {
      const res = await post(`${relay!.url}/v1/status`, { labels: { id: 'agent-a', version: '1.0' }, seq: i })
      expect(res.statusCode).toBe(200)
      await res.body.dump()
    }
    const partitioned = await post(`${relay!.url}/v1/status/edge/`, { labels: { id: 'agent-b' }, seq: 1 })
    expect(partitioned.statusCode).toBe(200)
    await partitioned.body.dump()
    await eventually(
      () => upstream.statusPosts.some((p) => (p.body as { labels: { id: string } }).labels.id === 'agent-b'),
      5000,
      'forward',
    )
    const fromA = upstream.statusPosts.filter(
      (p) => (p.body as { labels: { id: string } }).labels.id === 'agent-a',
    )
    // Only the latest report is forwarded (a tick may fall between two posts, never between all).
    expect((fromA.at(-1)?.body as { seq: number } | undefined)?.seq).toBe(5)
    expect(fromA.length).toBeLessThan(3)
    expect(fromA[0]?.path).toBe('/v1/status')
    expect(
      upstream.statusPosts.find((p) => (p.body as { labels: { id: string } }).labels.id === 'agent-b')?.path,
    ).toBe('/v1/status/edge')
    // The relay reports itself too, in OPA's status shape.
    await eventually(
      () =>
        upstream.statusPosts.some(
          (p) => (p.body as { labels: { type?: string } }).labels.type === 'regent-relay',
        ),
      5000,
      'own report',
    )
    const own = upstream.statusPosts.findLast(
      (p) => (p.body as { labels: { type?: string } }).labels.type === 'regent-relay',
    )?.body as {
      labels: Record<string, string>
      bundles: Record<string, { active_revision?: string }>
      relay_agents: string[]
    }
    expect(own.labels.region).toBe('eu-1')
    // It lists the agents it forwards for, so the service can show them behind it. Its first report
    // may go out before an agent's arrives, so it names a sorted subset of them (the console's fleet
    // test, test/console/fleet.test.ts, checks the full list through the service).
    expect(Array.isArray(own.relay_agents)).toBe(true)
    expect(['agent-a', 'agent-b']).toEqual(expect.arrayContaining(own.relay_agents))
    expect(own.relay_agents).toEqual([...own.relay_agents].sort())
    const view = (await (await request(`${relay!.url}/v1/relay/status`)).body.json()) as {
      agents: { count: number; latest: Array<{ id: string; partition: string | null }> }
    }
    expect(view.agents.count).toBe(2)
    expect(view.agents.latest.map((a) => [a.id, a.partition])).toEqual([
      ['agent-a', null],
      ['agent-b', 'edge'],
    ])
    expect(Object.keys(own.bundles)).toEqual(['authz'])
  })

  it('answers bad reports with a 400 that says what is wrong', async () => {
    const notJson = await request(`${relay!.url}/v1/status`, { method: 'POST', body: '{"labels": ' })
    expect(notJson.statusCode).toBe(400)
    expect(((await notJson.body.json()) as { message: string }).message).toMatch(
      /^malformed JSON body at line 1/,
    )
    const array = await post(`${relay!.url}/v1/status`, [])
    expect(array.statusCode).toBe(400)
    expect(await array.body.json()).toEqual({
      code: 'invalid_parameter',
      message: 'status report must be a JSON object',
    })
    const noId = await post(`${relay!.url}/v1/status`, { labels: {} })
    expect(noId.statusCode).toBe(400)
    expect(((await noId.body.json()) as { message: string }).message).toMatch(/labels\.id/)
  })

  it('refuses a report past the depth or size limits at intake, naming the limit', async () => {
    const deep = `{"labels":{"id":"deep"},"x":${'['.repeat(1001)}${']'.repeat(1001)}}`
    const tooDeep = await request(`${relay!.url}/v1/status`, { method: 'POST', body: deep })
    expect(tooDeep.statusCode).toBe(400)
    expect(await tooDeep.body.json()).toEqual({
      code: 'invalid_parameter',
      message: 'status report nests deeper than 1000 levels (at character 1027)',
    })
    const big = await post(`${relay!.url}/v1/status`, { labels: { id: 'big' }, x: 'x'.repeat(70_000) })
    expect(big.statusCode).toBe(413)
    expect(((await big.body.json()) as { message: string }).message).toMatch(
      /larger than 65536 bytes \(relay\.status\.max_body_bytes\)/,
    )
    const bomb = await request(`${relay!.url}/v1/status`, {
      method: 'POST',
      body: gzipSync(`{"labels":{"id":"bomb"},"x":"${'x'.repeat(200_000)}"}`),
      headers: { 'Content-Encoding': 'gzip' },
    })
    expect(bomb.statusCode).toBe(413)
    expect(((await bomb.body.json()) as { message: string }).message).toMatch(
      /inflates to more than 131072 bytes \(relay\.status\.max_decompressed_bytes\)/,
    )
    // Exactly at the depth limit is fine.
    const edge = `{"labels":{"id":"edge"},"x":${'['.repeat(999)}${']'.repeat(999)}}`
    const atLimit = await request(`${relay!.url}/v1/status`, { method: 'POST', body: edge })
    expect(atLimit.statusCode).toBe(200)
    await atLimit.body.dump()
  })

  it('drops a report the upstream refuses and keeps forwarding the others', async () => {
    upstream.refusedStatusAgents.add('refused')
    for (const id of ['refused', 'agent-c']) {
      const res = await post(`${relay!.url}/v1/status`, { labels: { id }, seq: 1 })
      expect(res.statusCode).toBe(200)
      await res.body.dump()
    }
    await eventually(
      () => upstream.statusPosts.some((p) => (p.body as { labels: { id: string } }).labels.id === 'agent-c'),
      5000,
      'forward of agent-c',
    )
    const later = await post(`${relay!.url}/v1/status`, { labels: { id: 'agent-d' }, seq: 1 })
    await later.body.dump()
    await eventually(
      () => upstream.statusPosts.some((p) => (p.body as { labels: { id: string } }).labels.id === 'agent-d'),
      5000,
      'forward of agent-d',
    )
  })
})
