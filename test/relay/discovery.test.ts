import { request } from 'undici'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { RunningRelay } from '../../relay/relay.js'
import { type FaultUpstream, makeBundle, startFaultUpstream } from '../support/fault-upstream.js'
import { eventually, relayConfig, startTestRelay, tempDir } from './helpers.js'

const discoveryBundle = (
  revision: string,
  bundles: Record<string, unknown>,
  extra: Record<string, unknown> = {},
) =>
  makeBundle({
    revision,
    modules: {},
    data: { discovery: { bundles, decision_logs: { service: 'styra' }, ...extra } },
  })

describe('discovery', () => {
  let upstream: FaultUpstream
  let relay: RunningRelay | undefined
  let dir: Awaited<ReturnType<typeof tempDir>>
  const config = () =>
    relayConfig(`
services: [{ name: styra, url: "${upstream.url}/v1" }]
discovery: { name: discovery, resource: /systems/abc/discovery, polling: { min_delay_seconds: 1, max_delay_seconds: 1 } }
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

  it('relays the discovery bundle and pulls the bundles it names, also after a restart with the upstream down', async () => {
    const disco = await discoveryBundle('d1', {
      'systems/abc': {
        service: 'styra',
        resource: '/bundles/systems/abc',
        polling: { min_delay_seconds: 1, max_delay_seconds: 1 },
      },
    })
    const policy = await makeBundle({ revision: 'p1' })
    upstream.setBundle('/v1/systems/abc/discovery', disco, '"d1"')
    upstream.setBundle('/v1/bundles/systems/abc', policy, '"p1"')
    relay = await startTestRelay(config(), dir.dir)
    await eventually(
      async () => (await request(`${relay!.url}/v1/bundles/systems/abc`)).statusCode === 200,
      5000,
      'policy',
    )
    const d = await request(`${relay.url}/v1/systems/abc/discovery`)
    expect(Buffer.from(await d.body.arrayBuffer()).equals(Buffer.from(disco))).toBe(true)
    // Agents that name discovery without a prefix ask OPA's default `bundles/<name>`.
    const alias = await request(`${relay.url}/v1/bundles/discovery`)
    expect(alias.headers.etag).toBe('"d1"')
    expect(Buffer.from(await alias.body.arrayBuffer()).equals(Buffer.from(disco))).toBe(true)

    await relay.stop()
    await upstream.stop()
    relay = await startTestRelay(config(), dir.dir)
    const again = await request(`${relay.url}/v1/bundles/systems/abc`)
    expect(again.statusCode).toBe(200)
    expect(Buffer.from(await again.body.arrayBuffer()).equals(Buffer.from(policy))).toBe(true)
    upstream = await startFaultUpstream()
  })

  it('follows a changed discovery bundle: new bundles pulled, dropped ones no longer pulled', async () => {
    upstream.setBundle(
      '/v1/systems/abc/discovery',
      await discoveryBundle('d1', { one: { resource: 'bundles/one' } }),
      '"d1"',
    )
    upstream.setBundle('/v1/bundles/one', await makeBundle({ revision: 'one' }))
    upstream.setBundle('/v1/bundles/two', await makeBundle({ revision: 'two' }))
    relay = await startTestRelay(config(), dir.dir)
    await eventually(
      async () => (await request(`${relay!.url}/v1/bundles/one`)).statusCode === 200,
      5000,
      'one',
    )
    expect((await request(`${relay.url}/v1/bundles/two`)).statusCode).toBe(404)
    upstream.setBundle('/v1/systems/abc/discovery', await discoveryBundle('d2', { two: {} }), '"d2"')
    await eventually(
      async () => (await request(`${relay!.url}/v1/bundles/two`)).statusCode === 200,
      5000,
      'two',
    )
    const pullsOfOne = upstream.requestsFor('/v1/bundles/one').length
    await new Promise((r) => setTimeout(r, 1500))
    expect(upstream.requestsFor('/v1/bundles/one').length).toBe(pullsOfOne)
    // Learned bundles do not hold readiness.
    expect((await request(`${relay.url}/health/ready`)).statusCode).toBe(200)
  })
})
