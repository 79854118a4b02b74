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
const NOT_A_BUNDLE = new Uint8Array(Buffer.from('{"not": "a bundle"}'))

/** What the upstream serves: a body and its ETag (none when undefined). */
interface Offer {
  body: Uint8Array
  etag?: string
}

describe('BundlePuller: a refused download is not fetched again', () => {
  let server: Server
  let url: string
  let offer: Offer
  let honoursIfNoneMatch: boolean
  let clock: number
  const requests: Array<{ ifNoneMatch?: string; status: number }> = []

  beforeEach(async () => {
    requests.length = 0
    honoursIfNoneMatch = true
    clock = 1_000_000
    server = createServer((req, res) => {
      const ifNoneMatch = req.headers['if-none-match']
      const tags = (ifNoneMatch ?? '').split(',').map((t) => t.trim())
      if (honoursIfNoneMatch && offer.etag && tags.includes(offer.etag)) {
        requests.push({ ifNoneMatch, status: 304 })
        res.writeHead(304, { ETag: offer.etag }).end()
        return
      }
      requests.push({ ifNoneMatch, status: 200 })
      const headers: Record<string, string> = { 'Content-Type': 'application/gzip' }
      if (offer.etag) headers.ETag = offer.etag
      res.writeHead(200, headers).end(Buffer.from(offer.body))
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
  })
  afterEach(async () => {
    server.closeAllConnections()
    await new Promise((resolve) => server.close(resolve))
  })

  function puller(bundleExtra = '') {
    const config = relayConfig(`
services: { up: { url: "${url}" } }
bundles: { b: { polling: { min_delay_seconds: 2, max_delay_seconds: 4 }${bundleExtra} } }
`)
    const target = resolveTargets(config)[0]!
    const cache = new BundleCache(new LongPollWaiters(10), undefined, logger)
    const metrics = createRelayMetrics(cache, { defaultMetrics: false })
    const client = new ServiceClient('up', config.services.up!)
    const p = new BundlePuller({ target, client, cache, metrics, logger, now: () => clock })
    const state = () => cache.get('bundles/b')!
    const refusedAgain = async () =>
      (await metrics.upstreamRequests.get()).values.find((v) => v.labels.outcome === 'refused_again')
        ?.value ?? 0
    return { p, state, refusedAgain }
  }

  it('sends the refused ETag in If-None-Match, keeps serving the last good bundle and the refusal', async () => {
    const { p, state, refusedAgain } = puller()
    offer = { body: await makeBundle({ revision: 'r1' }), etag: '"good"' }
    await p.pullOnce()
    offer = { body: NOT_A_BUNDLE, etag: '"bad"' }
    await p.pullOnce()
    expect(state().rejections).toEqual({ bundle_archive_invalid: 1 })
    for (let i = 0; i < 3; i++) {
      const delay = await p.pullOnce()
      // A normal polling interval, not a tight retry.
      expect(delay).toBeGreaterThanOrEqual(2000)
    }
    expect(requests.map((r) => r.status)).toEqual([200, 200, 304, 304, 304])
    expect(requests[2]?.ifNoneMatch).toBe('"good", "bad"')
    expect(state().served?.revision).toBe('r1')
    expect(state().lastError?.code).toBe('bundle_archive_invalid')
    expect(state().rejections).toEqual({ bundle_archive_invalid: 1 })
    expect(await refusedAgain()).toBe(3)

    // A new bundle under a new ETag is fetched, verified and promoted; the refusal is forgotten.
    offer = { body: await makeBundle({ revision: 'r2' }), etag: '"new"' }
    await p.pullOnce()
    expect(state().served?.revision).toBe('r2')
    expect(state().lastError).toBeUndefined()
    await p.pullOnce()
    expect(requests.at(-1)).toEqual({ ifNoneMatch: '"new"', status: 304 })
  })

  it('fetches a refused bundle again after twice max_delay_seconds, doubling the wait each time', async () => {
    const { p, state } = puller()
    offer = { body: NOT_A_BUNDLE, etag: '"bad"' }
    const statuses = () => requests.map((r) => r.status)
    await p.pullOnce()
    clock += 7_000 // max_delay_seconds is 4: left alone for 8 s
    await p.pullOnce()
    expect(statuses()).toEqual([200, 304])
    clock += 2_000
    await p.pullOnce() // fetched again (a refusal may have had a passing cause), refused again
    expect(statuses()).toEqual([200, 304, 200])
    expect(state().rejections).toEqual({ bundle_archive_invalid: 2 })
    clock += 15_000 // now 16 s
    await p.pullOnce()
    expect(statuses()).toEqual([200, 304, 200, 304])
    clock += 2_000
    // A passing cause gone: the same ETag now holds a good bundle, which is promoted.
    offer = { body: await makeBundle({ revision: 'healed' }), etag: '"bad"' }
    await p.pullOnce()
    expect(statuses()).toEqual([200, 304, 200, 304, 200])
    expect(state().served?.revision).toBe('healed')
  })

  it('does not read the body again from an upstream that ignores If-None-Match', async () => {
    const { p, state, refusedAgain } = puller()
    honoursIfNoneMatch = false
    offer = { body: NOT_A_BUNDLE, etag: '"bad"' }
    await p.pullOnce()
    await p.pullOnce()
    await p.pullOnce()
    expect(requests).toHaveLength(3)
    expect(state().rejections).toEqual({ bundle_archive_invalid: 1 })
    expect(await refusedAgain()).toBe(2)
  })

  it('without ETags, recognises the same bytes and does not verify them again', async () => {
    const { p, state, refusedAgain } = puller()
    offer = { body: NOT_A_BUNDLE }
    await p.pullOnce()
    await p.pullOnce()
    expect(state().rejections).toEqual({ bundle_archive_invalid: 1 })
    expect(await refusedAgain()).toBe(1)
    offer = { body: await makeBundle({ revision: 'r3' }) }
    await p.pullOnce()
    expect(state().served?.revision).toBe('r3')
  })

  it('remembers a download refused for its size by its ETag', async () => {
    const { p, state } = puller(', size_limit_bytes: 1048576')
    offer = { body: new Uint8Array(2 * 1024 * 1024), etag: '"huge"' }
    await p.pullOnce()
    await p.pullOnce()
    expect(requests.map((r) => r.status)).toEqual([200, 304])
    expect(requests[1]?.ifNoneMatch).toBe('"huge"')
    expect(state().lastError?.code).toBe('too_large')
    expect(state().served).toBeUndefined()
  })
})
