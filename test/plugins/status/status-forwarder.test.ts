/**
 * The status forwarder posts its own report when it changes, and an unchanged one again once the
 * heartbeat is due (a sign of life the console's Fleet view reads), never more often.
 */
import pino from 'pino'
import { Counter, Histogram, Registry } from 'prom-client'
import { describe, expect, it } from 'vitest'
import type { PluginMetrics } from '../../../plugins/metrics.js'
import type { UpstreamResponse } from '../../../plugins/rest/http-request.js'
import type { ServiceClient } from '../../../plugins/rest/service-client.js'
import { StatusForwarder } from '../../../plugins/status/status-forwarder.js'

function metrics(): PluginMetrics {
  const registers = [new Registry()]
  return {
    upstreamRequests: new Counter({
      name: 'r',
      help: 'r',
      labelNames: ['kind', 'bundle', 'outcome'],
      registers,
    }),
    upstreamLatency: new Histogram({ name: 'l', help: 'l', labelNames: ['kind', 'bundle'], registers }),
    bundleRejections: new Counter({
      name: 'j',
      help: 'j',
      labelNames: ['kind', 'bundle', 'reason'],
      registers,
    }),
    statusForwards: new Counter({ name: 's', help: 's', labelNames: ['outcome'], registers }),
  }
}

describe('status forwarder heartbeat', () => {
  it('posts an unchanged own report again only when the heartbeat is due', async () => {
    const posts: string[] = []
    const client = {
      async send(req: { body: string }) {
        posts.push(req.body)
        return { statusCode: 200, body: { dump: async () => {} } } as unknown as UpstreamResponse
      },
    } as unknown as ServiceClient
    let now = 1_000_000
    let report: Record<string, unknown> = { labels: { id: 'me' }, state: 'OK' }
    const forwarder = new StatusForwarder({
      client,
      ownReport: () => report,
      intervalMs: 1000,
      heartbeatMs: 60_000,
      now: () => now,
      metrics: metrics(),
      logger: pino({ level: 'silent' }),
    })
    expect(await forwarder.forwardOnce()).toBe(true)
    expect(posts).toHaveLength(1)
    now += 59_999
    await forwarder.forwardOnce()
    expect(posts).toHaveLength(1)
    now += 1
    await forwarder.forwardOnce()
    expect(posts).toHaveLength(2)
    // A change goes out at once, and restarts the heartbeat.
    now += 1000
    report = { labels: { id: 'me' }, state: 'NOT_READY' }
    await forwarder.forwardOnce()
    expect(posts).toHaveLength(3)
    now += 30_000
    await forwarder.forwardOnce()
    expect(posts).toHaveLength(3)
    expect(JSON.parse(posts[2]!)).toEqual(report)
  })
})
