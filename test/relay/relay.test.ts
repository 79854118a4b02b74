import { generateKeyPairSync } from 'node:crypto'
import { request } from 'undici'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { RunningRelay } from '../../relay/relay.js'
import { AgentSimulator } from '../support/agent-simulator.js'
import { type FaultUpstream, makeBundle, startFaultUpstream } from '../support/fault-upstream.js'
import { eventually, metricValue, relayConfig, startTestRelay, tempDir } from './helpers.js'

const PATH = '/v1/bundles/authz'

describe('relay over a fault-injecting upstream', () => {
  let upstream: FaultUpstream
  let relay: RunningRelay | undefined
  let dir: { dir: string; cleanup: () => Promise<void> }
  const config = () =>
    relayConfig(`
services: { up: { url: "${upstream.url}/v1", response_header_timeout_seconds: 1 } }
bundles:
  authz:
    polling: { min_delay_seconds: 1, max_delay_seconds: 1, long_polling_timeout_seconds: 2 }
labels: { team: t1 }
`)

  beforeEach(async () => {
    upstream = await startFaultUpstream()
    dir = await tempDir()
  })
  afterEach(async () => {
    await relay?.stop()
    relay = undefined
    await upstream.stop()
    await dir.cleanup()
  })

  it('serves the upstream bytes unchanged with ETag, 304 and 404, and is ready once it has them', async () => {
    const bytes = await makeBundle({ revision: 'r1' })
    relay = await startTestRelay(config(), dir.dir)
    const ready0 = await request(`${relay.url}/health/ready`)
    expect(ready0.statusCode).toBe(503)
    expect(((await ready0.body.json()) as { reasons: string[] }).reasons).toEqual([
      'bundle authz has no verified copy yet',
    ])
    const early = await request(`${relay.url}${PATH}`)
    expect(early.statusCode).toBe(503)
    await early.body.dump()
    upstream.setBundle(PATH, bytes, '"up-1"')
    await eventually(
      async () => (await request(`${relay!.url}/health/ready`)).statusCode === 200,
      5000,
      'ready',
    )

    const full = await request(`${relay.url}${PATH}`)
    expect(full.statusCode).toBe(200)
    expect(full.headers.etag).toBe('"up-1"')
    expect(full.headers['content-type']).toBe('application/gzip')
    expect(Buffer.from(await full.body.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true)
    // The resource may be asked for with extra slashes, as OPA trims them.
    const same = await request(`${relay.url}/v1/bundles/authz/`, { headers: { 'If-None-Match': '"up-1"' } })
    expect(same.statusCode).toBe(304)
    expect(same.headers.etag).toBe('"up-1"')
    await same.body.dump()
    const stale = await request(`${relay.url}${PATH}`, { headers: { 'If-None-Match': '"old"' } })
    expect(stale.statusCode).toBe(200)
    await stale.body.dump()
    // Plain polls take the fast path: same headers, request ids echoed, responses counted.
    const traced = await request(`${relay.url}${PATH}`, {
      headers: { 'If-None-Match': '"up-1"', 'X-Request-Id': 'trace-1' },
    })
    expect(traced.statusCode).toBe(304)
    expect(traced.headers['x-request-id']).toBe('trace-1')
    await traced.body.dump()
    const counted = await (await request(`${relay.url}/metrics`)).body.text()
    expect(metricValue(counted, 'regent_relay_agent_bundle_responses_total', 'code="304"')).toBe(2)
    expect(metricValue(counted, 'regent_relay_agent_bundle_responses_total', 'code="200"')).toBe(2)
    const missing = await request(`${relay.url}/v1/bundles/nope`)
    expect(missing.statusCode).toBe(404)
    expect(await missing.body.json()).toEqual({
      code: 'resource_not_found',
      message: 'no bundle is served at /v1/bundles/nope',
    })

    // The relay asked upstream as an agent would: snapshots only, long poll, then If-None-Match.
    const seen = upstream.requestsFor(PATH)
    expect(seen[0]?.headers.prefer).toBe('modes=snapshot;wait=2')
    await eventually(
      () => upstream.requestsFor(PATH).some((r) => r.headers['if-none-match'] === '"up-1"'),
      5000,
      'conditional GET',
    )
  })

  it('wakes a long-polling agent as soon as a new revision is promoted', async () => {
    upstream.setBundle(PATH, await makeBundle({ revision: 'r1' }), '"e1"')
    relay = await startTestRelay(config(), dir.dir)
    const agent = new AgentSimulator({ url: `${relay.url}${PATH}`, longPollSeconds: 30 })
    agent.start()
    try {
      await agent.waitForRevision('r1')
      expect(agent.longPolling).toBe(true)
      const before = agent.statusCodes.length
      upstream.setBundle(PATH, await makeBundle({ revision: 'r2' }), '"e2"')
      await agent.waitForRevision('r2', 5000)
      // Woken from the held request: no 304 in between.
      expect(agent.statusCodes.slice(before)).toEqual([200])
      const status = (await (await request(`${relay.url}/v1/relay/status`)).body.json()) as {
        bundles: Record<string, { revision: string; source: string; etag: string }>
      }
      expect(status.bundles.authz).toMatchObject({ revision: 'r2', source: 'upstream', etag: '"e2"' })
    } finally {
      await agent.stop()
    }
  })

  it('answers a held long poll with 304 when nothing changes within wait', async () => {
    upstream.setBundle(PATH, await makeBundle({ revision: 'r1' }), '"e1"')
    relay = await startTestRelay(config(), dir.dir)
    await eventually(async () => (await request(`${relay!.url}/health/ready`)).statusCode === 200)
    const started = Date.now()
    const res = await request(`${relay.url}${PATH}`, {
      headers: { 'If-None-Match': '"e1"', Prefer: 'modes=snapshot,delta;wait=1' },
    })
    expect(res.statusCode).toBe(304)
    expect(Date.now() - started).toBeGreaterThanOrEqual(900)
    await res.body.dump()
  })

  it('keeps serving the last good bundle through every upstream fault, and counts refusals', async () => {
    const good = await makeBundle({ revision: 'good' })
    upstream.setBundle(PATH, good, '"g"')
    relay = await startTestRelay(
      relayConfig(`
services: { up: { url: "${upstream.url}/v1", response_header_timeout_seconds: 1 } }
bundles: { authz: { polling: { min_delay_seconds: 1, max_delay_seconds: 1 } } }
`),
      dir.dir,
    )
    await eventually(async () => (await request(`${relay!.url}/health/ready`)).statusCode === 200)
    const outcomes = async (outcome: string) =>
      metricValue(
        await (await request(`${relay!.url}/metrics`)).body.text(),
        'regent_relay_upstream_requests_total',
        `outcome="${outcome}"`,
      )
    // A new bundle exists upstream, but every way of fetching it fails.
    upstream.setBundle(PATH, await makeBundle({ revision: 'never' }), '"n"')
    const faults = [
      ['status-500', 'http_error'],
      ['garbage', 'rejected'],
      ['truncated', 'rejected'],
      ['hang', 'timeout'],
      ['stall-body', 'timeout'],
    ] as const
    for (const [fault, outcome] of faults) {
      upstream.fault = fault
      const before = await outcomes(outcome)
      await eventually(async () => (await outcomes(outcome)) > before, 8000, `${outcome} under ${fault}`)
      const res = await request(`${relay.url}${PATH}`)
      expect(res.statusCode).toBe(200)
      expect(res.headers.etag).toBe('"g"')
      expect(Buffer.from(await res.body.arrayBuffer()).equals(Buffer.from(good))).toBe(true)
    }
    const metrics = await (await request(`${relay.url}/metrics`)).body.text()
    expect(
      metricValue(metrics, 'regent_relay_bundle_rejections_total', 'reason="bundle_archive_invalid"'),
    ).toBeGreaterThan(0)
    expect(metricValue(metrics, 'regent_relay_bundle_info', 'revision="good"')).toBe(1)
    const status = (await (await request(`${relay.url}/v1/relay/status`)).body.json()) as {
      bundles: { authz: { revision: string; last_error: { code: string } | null } }
    }
    expect(status.bundles.authz.revision).toBe('good')
    expect(status.bundles.authz.last_error).not.toBeNull()
    // Once the upstream recovers, the new revision arrives.
    upstream.fault = 'none'
    await eventually(
      async () => (await request(`${relay!.url}${PATH}`)).headers.etag === '"n"',
      10_000,
      'recovery',
    )
  })

  it('refuses an oversized download while it streams', async () => {
    upstream.setBundle(PATH, await makeBundle({ revision: 'r1' }), '"e1"')
    relay = await startTestRelay(
      relayConfig(`
services: { up: { url: "${upstream.url}/v1" } }
bundles: { authz: { size_limit_bytes: 100000, polling: { min_delay_seconds: 1, max_delay_seconds: 1 } } }
`),
      dir.dir,
    )
    await eventually(async () => (await request(`${relay!.url}/health/ready`)).statusCode === 200)
    upstream.fault = 'oversized'
    upstream.setBundle(PATH, await makeBundle({ revision: 'r2' }), '"e2"')
    await eventually(
      async () => {
        const m = await (await request(`${relay!.url}/metrics`)).body.text()
        return metricValue(m, 'regent_relay_bundle_rejections_total', 'reason="bundle_size_limit"') > 0
      },
      8000,
      'size refusal',
    )
    const res = await request(`${relay.url}${PATH}`)
    expect(res.headers.etag).toBe('"e1"')
    await res.body.dump()
  })

  it('restarts from disk with the upstream down and serves agents at once', async () => {
    const bytes = await makeBundle({ revision: 'kept' })
    upstream.setBundle(PATH, bytes, '"k"')
    relay = await startTestRelay(config(), dir.dir)
    await eventually(async () => (await request(`${relay!.url}/health/ready`)).statusCode === 200)
    await relay.stop()
    await upstream.stop()
    relay = await startTestRelay(config(), dir.dir)
    const ready = await request(`${relay.url}/health/ready`)
    expect(ready.statusCode).toBe(200)
    await ready.body.dump()
    const res = await request(`${relay.url}${PATH}`)
    expect(res.statusCode).toBe(200)
    expect(res.headers.etag).toBe('"k"')
    expect(Buffer.from(await res.body.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true)
    const status = (await (await request(`${relay.url}/v1/relay/status`)).body.json()) as {
      bundles: { authz: { source: string } }
    }
    expect(status.bundles.authz.source).toBe('disk')
    upstream = await startFaultUpstream() // for afterEach
  })

  it('promotes only bundles signed by the upstream key; agents keep the last good one otherwise', async () => {
    const keyPair = () => generateKeyPairSync('rsa', { modulusLength: 2048 })
    const good = keyPair()
    const evil = keyPair()
    const priv = (k: ReturnType<typeof keyPair>) =>
      k.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString()
    const pub = good.publicKey.export({ type: 'spki', format: 'pem' }).toString()
    upstream.setBundle(
      PATH,
      await makeBundle({ revision: 'signed-1', signingKey: priv(good), keyId: 'k' }),
      '"s1"',
    )
    relay = await startTestRelay(
      relayConfig(`
services: { up: { url: "${upstream.url}/v1" } }
keys: { k: { key: ${JSON.stringify(pub)} } }
bundles: { authz: { signing: { keyid: k }, polling: { min_delay_seconds: 1, max_delay_seconds: 1 } } }
`),
      dir.dir,
    )
    const agent = new AgentSimulator({ url: `${relay.url}${PATH}`, pollIntervalMs: 50 })
    agent.start()
    try {
      await agent.waitForRevision('signed-1')
      const rejections = async (why: string) =>
        metricValue(
          await (await request(`${relay!.url}/metrics`)).body.text(),
          'regent_relay_bundle_rejections_total',
          `reason="${why}"`,
        )
      upstream.setBundle(
        PATH,
        await makeBundle({ revision: 'evil', signingKey: priv(evil), keyId: 'k' }),
        '"x1"',
      )
      await eventually(
        async () => (await rejections('bundle_signature_invalid')) > 0,
        5000,
        'wrong-key refusal',
      )
      upstream.setBundle(PATH, await makeBundle({ revision: 'unsigned' }), '"x2"')
      await eventually(
        async () => (await rejections('bundle_signature_missing')) > 0,
        5000,
        'unsigned refusal',
      )
      expect(agent.revision).toBe('signed-1')
      expect(agent.activations.map((a) => a.revision)).toEqual(['signed-1'])
      upstream.setBundle(
        PATH,
        await makeBundle({ revision: 'signed-2', signingKey: priv(good), keyId: 'k' }),
        '"s2"',
      )
      await agent.waitForRevision('signed-2', 5000)
    } finally {
      await agent.stop()
    }
  })

  it('does not serve a stored bundle that fails verification under a changed config', async () => {
    upstream.setBundle(PATH, await makeBundle({ revision: 'plain' }), '"p"')
    relay = await startTestRelay(config(), dir.dir)
    await eventually(async () => (await request(`${relay!.url}/health/ready`)).statusCode === 200)
    await relay.stop()
    await upstream.stop()
    // Signing is now required: the unsigned copy on disk must not be served.
    relay = await startTestRelay(
      relayConfig(`
services: { up: { url: "${upstream.url}/v1" } }
bundles: { authz: { signing: {} } }
`),
      dir.dir,
    )
    const res = await request(`${relay.url}${PATH}`)
    expect(res.statusCode).toBe(503)
    await res.body.dump()
    upstream = await startFaultUpstream()
  })

  it('refuses an unwritable storage folder, persistent or not; uses relay.storage.fallback_dir when set', async () => {
    upstream.setBundle(PATH, await makeBundle({ revision: 'mem' }), '"m"')
    const { writeFileSync } = await import('node:fs')
    const file = `${dir.dir}/not-a-folder`
    writeFileSync(file, 'x')
    const yaml = (storage: string) => `
services: { up: { url: "${upstream.url}/v1" } }
bundles: { authz: {} }
relay: { storage: ${storage} }
`
    for (const persistent of [true, false]) {
      await expect(
        startTestRelay(relayConfig(yaml(`{ persistent: ${persistent} }`)), `${file}/relay`),
      ).rejects.toThrow(/relay\.storage\.dir: .*not-a-folder\/relay is not writable \(ENOTDIR/)
    }
    relay = await startTestRelay(
      relayConfig(yaml(`{ fallback_dir: "${dir.dir}/fallback" }`)),
      `${file}/relay`,
    )
    expect(relay.context.dataDir).toBe(`${dir.dir}/fallback`)
    await eventually(
      async () => (await request(`${relay!.url}${PATH}`)).statusCode === 200,
      5000,
      'served from the fallback folder',
    )
  })

  it('caps held long polls (503 + Retry-After) and releases the slot of an agent that goes away', async () => {
    upstream.setBundle(PATH, await makeBundle({ revision: 'r1' }), '"e1"')
    relay = await startTestRelay(
      relayConfig(`
services: { up: { url: "${upstream.url}/v1" } }
bundles: { authz: {} }
relay: { long_poll: { max_waiters: 1 } }
`),
      dir.dir,
    )
    await eventually(async () => (await request(`${relay!.url}/health/ready`)).statusCode === 200)
    const held = { 'If-None-Match': '"e1"', Prefer: 'modes=snapshot,delta;wait=30' }
    const abort = new AbortController()
    const first = request(`${relay.url}${PATH}`, { headers: held, signal: abort.signal }).catch(
      () => undefined,
    )
    const waiters = async () =>
      metricValue(
        await (await request(`${relay!.url}/metrics`)).body.text(),
        'regent_relay_long_poll_waiters',
      )
    await eventually(async () => (await waiters()) === 1, 5000, 'one waiter')
    const refused = await request(`${relay.url}${PATH}`, { headers: held })
    expect(refused.statusCode).toBe(503)
    expect(refused.headers['retry-after']).toBe('1')
    expect(((await refused.body.json()) as { code: string }).code).toBe('too_many_waiters')
    abort.abort()
    await first
    await eventually(async () => (await waiters()) === 0, 5000, 'slot released')
  })

  it('long-polls through the app route too when agents need a bearer token', async () => {
    upstream.setBundle(PATH, await makeBundle({ revision: 'r1' }), '"e1"')
    relay = await startTestRelay(
      relayConfig(`
services: { up: { url: "${upstream.url}/v1" } }
bundles: { authz: { polling: { min_delay_seconds: 1, max_delay_seconds: 1, long_polling_timeout_seconds: 5 } } }
relay: { agent_auth: { type: bearer, tokens: [t0k] } }
`),
      dir.dir,
    )
    const agent = new AgentSimulator({
      url: `${relay.url}${PATH}`,
      longPollSeconds: 30,
      headers: { Authorization: 'Bearer t0k' },
    })
    agent.start()
    try {
      await agent.waitForRevision('r1')
      upstream.setBundle(PATH, await makeBundle({ revision: 'r2' }), '"e2"')
      await agent.waitForRevision('r2', 5000)
      expect(agent.longPolling).toBe(true)
    } finally {
      await agent.stop()
    }
  })

  it('answers held long polls with 304 at once when it stops', async () => {
    upstream.setBundle(PATH, await makeBundle({ revision: 'r1' }), '"e1"')
    relay = await startTestRelay(config(), dir.dir)
    await eventually(async () => (await request(`${relay!.url}/health/ready`)).statusCode === 200)
    const held = request(`${relay.url}${PATH}`, { headers: { 'If-None-Match': '"e1"', Prefer: 'wait=60' } })
    await eventually(async () => relay!.context.cache.waiters.count === 1, 5000, 'held')
    const started = Date.now()
    await relay.stop()
    relay = undefined
    const res = await held
    expect(res.statusCode).toBe(304)
    await res.body.dump()
    expect(Date.now() - started).toBeLessThan(5000)
  })
})
