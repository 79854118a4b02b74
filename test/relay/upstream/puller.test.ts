import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import pino from 'pino'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BundleCache } from '../../../plugins/bundle/bundle-cache.js'
import { BundlePuller } from '../../../plugins/bundle/puller.js'
import { resolveTargets } from '../../../plugins/bundle/targets.js'
import { LongPollWaiters } from '../../../plugins/bundle/waiters.js'
import { ServiceClient } from '../../../plugins/rest/service-client.js'
import { createRelayMetrics } from '../../../relay/metrics.js'
import { makeBundle } from '../../support/fault-upstream.js'
import { relayConfig } from '../helpers.js'

const logger = pino({ level: 'silent' })

describe('BundlePuller', () => {
  let server: Server
  let url: string
  let answer: { status: number; type: string; body: Uint8Array }
  const seen: Array<Record<string, string | string[] | undefined>> = []
  beforeEach(async () => {
    seen.length = 0
    server = createServer((req, res) => {
      seen.push(req.headers)
      res.writeHead(answer.status, { 'Content-Type': answer.type, ETag: '"x"' }).end(Buffer.from(answer.body))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterEach(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  function puller() {
    const config = relayConfig(`
services: { up: { url: "${url}" } }
bundles: { b: { polling: { min_delay_seconds: 2, max_delay_seconds: 4, long_polling_timeout_seconds: 5 } } }
`)
    const target = resolveTargets(config)[0]!
    const cache = new BundleCache(new LongPollWaiters(10), undefined, logger)
    const client = new ServiceClient('up', config.services.up!)
    return {
      p: new BundlePuller({
        target,
        client,
        cache,
        metrics: createRelayMetrics(cache, { defaultMetrics: false }),
        logger,
      }),
      cache,
    }
  }

  it('leaves long-poll mode when the upstream answers 200 with another media type, as OPA does', async () => {
    answer = { status: 200, type: 'application/gzip', body: await makeBundle({ revision: 'r1' }) }
    const { p, cache } = puller()
    const delay = await p.pullOnce()
    expect(seen[0]?.prefer).toBe('modes=snapshot;wait=5')
    expect(cache.get('bundles/b')?.served?.revision).toBe('r1')
    // Periodic from now on: a delay in [min, max] and no wait in the next request.
    expect(delay).toBeGreaterThanOrEqual(2000)
    expect(delay).toBeLessThanOrEqual(4000)
    await p.pullOnce()
    expect(seen[1]?.prefer).toBe('modes=snapshot')
    expect(seen[1]?.['if-none-match']).toBe('"x"')
  })

  it('re-requests at once in long-poll mode and backs off on errors, growing and capped at max', async () => {
    answer = {
      status: 200,
      type: 'application/vnd.openpolicyagent.bundles',
      body: await makeBundle({ revision: 'r1' }),
    }
    const { p } = puller()
    expect(await p.pullOnce()).toBe(0)
    answer = { status: 503, type: 'text/plain', body: new Uint8Array() }
    const delays: number[] = []
    for (let i = 0; i < 12; i++) delays.push(await p.pullOnce())
    expect(delays[0]).toBeGreaterThan(0)
    expect(delays[0]).toBeLessThan(400)
    expect(delays.at(-1)).toBeLessThanOrEqual(4000)
    expect(delays.at(-1)).toBeGreaterThan(delays[0]!)
    // A success resets the backoff.
    answer = { status: 304, type: 'text/plain', body: new Uint8Array() }
    expect(await p.pullOnce()).toBe(0)
  })
})
