/**
 * Property test of the relay's agent-facing side over real HTTP, with its extensions (decision logs,
 * compile) as `regent relay` runs them: generated requests (bundle GETs with odd ETags and Prefer
 * headers, decision-log and status posts with malformed, non-array or badly gzipped bodies, compile
 * requests, unknown paths) get a 2xx, 304 or 4xx answer with a JSON error, or a 503 with
 * Retry-After, never another 5xx; afterwards the relay still serves the upstream's bundle byte for
 * byte and has buffered exactly the events of the well-formed posts. Run counts are bounded.
 */
import { gzipSync } from 'node:zlib'
import fc from 'fast-check'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { RELAY_EXTENSIONS } from '../../cli/commands/relay.js'
import type { RunningRelay } from '../../relay/relay.js'
import { type FaultUpstream, makeBundle, startFaultUpstream } from '../support/fault-upstream.js'
import { eventually, relayConfig, startTestRelay, tempDir } from './helpers.js'

const BUNDLE = '/v1/bundles/authz'

const json = fc.jsonValue({ maxDepth: 3 })
const event = fc.record(
  {
    decision_id: fc.uuid(),
    labels: fc.record({ id: fc.constantFrom('agent-1', 'agent-2') }),
    path: fc.constant('authz/allow'),
    result: json,
    timestamp: fc.constant('2026-11-22T06:00:00Z'),
  },
  { requiredKeys: ['decision_id'] },
)
const logsBody = fc.oneof(
  fc.array(event, { minLength: 1, maxLength: 4 }).map((events) => ({ text: JSON.stringify(events), events })),
  json.map((v) => ({ text: JSON.stringify(v), events: undefined })),
  fc.string({ maxLength: 30 }).map((text) => ({ text, events: undefined })),
)

type Generated =
  | { kind: 'bundle'; etag: string | undefined; prefer: string | undefined; path: string }
  | { kind: 'logs'; text: string; events: unknown[] | undefined; gzip: 'yes' | 'no' | 'lie' }
  | { kind: 'status'; text: string }
  | { kind: 'compile'; text: string; accept: string }
  | { kind: 'other'; method: string; path: string }

const generated: fc.Arbitrary<Generated> = fc.oneof(
  fc.record({
    kind: fc.constant('bundle' as const),
    etag: fc.constantFrom(undefined, '"up-1"', '"nope"', '*', '', 'W/"up-1"', '"up-1", "x"'),
    prefer: fc.constantFrom(
      undefined,
      'wait=0',
      'modes=snapshot,delta;wait=1',
      'wait=abc',
      'wait=-5',
      'wait',
    ),
    path: fc.constantFrom(BUNDLE, `${BUNDLE}/`, '/v1/bundles/none', '/v1/bundles/%2e%2e', '/v1/'),
  }),
  fc
    .record({ kind: fc.constant('logs' as const), gzip: fc.constantFrom('yes', 'no', 'lie') })
    .chain((r) => logsBody.map((b) => ({ ...r, ...b }))),
  fc.record({
    kind: fc.constant('status' as const),
    text: fc.oneof(
      fc
        .record({ labels: fc.record({ id: fc.constantFrom('agent-1', '') }), bundles: json })
        .map((v) => JSON.stringify(v)),
      json.map((v) => JSON.stringify(v)),
      fc.string({ maxLength: 20 }),
    ),
  }),
  fc.record({
    kind: fc.constant('compile' as const),
    text: fc.oneof(
      fc.constant('{"input": {"user": "bob"}, "unknowns": ["input.docs"]}'),
      json.map((v) => JSON.stringify(v)),
    ),
    accept: fc.constantFrom('application/vnd.opa.sql.postgresql+json', 'application/json', 'text/plain'),
  }),
  fc.record({
    kind: fc.constant('other' as const),
    method: fc.constantFrom('GET', 'POST', 'PUT', 'DELETE', 'PATCH'),
    path: fc.constantFrom('/', '/v1', '/v1/relay/status', '/metrics', '/health/ready', '/v1/logs', '/x'),
  }),
)

describe('relay under generated agent requests', () => {
  let upstream: FaultUpstream
  let relay: RunningRelay
  let dir: { dir: string; cleanup: () => Promise<void> }
  let bytes: Uint8Array

  beforeAll(async () => {
    upstream = await startFaultUpstream()
    dir = await tempDir()
    bytes = await makeBundle({ revision: 'r1' })
    upstream.setBundle(BUNDLE, bytes, '"up-1"')
    const config = relayConfig(`
services:
  up: { url: "${upstream.url}/v1", response_header_timeout_seconds: 1 }
  # Decision logs go to a service that is down, so every accepted event stays in the buffer.
  down: { url: "http://127.0.0.1:9/v1" }
bundles:
  authz: { service: up, polling: { min_delay_seconds: 60, max_delay_seconds: 60 } }
decision_logs: { service: down }
`)
    relay = await startTestRelay(config, dir.dir, { extensions: RELAY_EXTENSIONS })
    await eventually(
      async () => (await request(`${relay.url}/health/ready`)).statusCode === 200,
      10_000,
      'ready',
    )
  })
  afterAll(async () => {
    await relay?.stop()
    await upstream?.stop()
    await dir?.cleanup()
  })

  it('answers every request without a crash, then serves and buffers exactly what it should', async () => {
    let accepted = 0
    await fc.assert(
      fc.asyncProperty(generated, async (g) => {
        const { status, text, retryAfter } = await send(relay.url, g)
        const what = `${JSON.stringify(g).slice(0, 200)} -> ${status} ${text.slice(0, 200)}`
        if (status === 503) expect(retryAfter, what).toBeDefined()
        else expect(status, what).toBeLessThan(500)
        if (status >= 400 && g.kind !== 'bundle') expect(() => JSON.parse(text), what).not.toThrow()
        if (g.kind === 'logs' && g.events && g.gzip !== 'lie') {
          expect(status, what).toBe(204)
          accepted += g.events.length
        }
        if (g.kind === 'logs' && (!g.events || g.gzip === 'lie')) {
          // Only a JSON array of objects is stored (those missing fields are counted as malformed).
          if (status < 300) {
            const parsed = JSON.parse(g.text) as unknown
            expect(Array.isArray(parsed), what).toBe(true)
            accepted += (parsed as unknown[]).length
          }
        }
      }),
      { numRuns: 300, seed: 20261122 },
    )
    const full = await request(`${relay.url}${BUNDLE}`)
    expect(full.statusCode).toBe(200)
    expect(Buffer.from(await full.body.arrayBuffer()).equals(Buffer.from(bytes))).toBe(true)
    const status = (await (await request(`${relay.url}/v1/relay/status`)).body.json()) as {
      decision_logs: { buffer: { events: number } }
    }
    expect(status.decision_logs.buffer.events).toBe(accepted)
  })
})

async function send(
  base: string,
  g: Generated,
): Promise<{ status: number; text: string; retryAfter: string | undefined }> {
  let res: Awaited<ReturnType<typeof request>>
  switch (g.kind) {
    case 'bundle': {
      const headers: Record<string, string> = {}
      if (g.etag !== undefined) headers['If-None-Match'] = g.etag
      if (g.prefer !== undefined) headers.Prefer = g.prefer
      res = await request(`${base}${g.path}`, { headers })
      break
    }
    case 'logs': {
      const raw = Buffer.from(g.text)
      const body = g.gzip === 'yes' ? gzipSync(raw) : raw
      const headers: Record<string, string> = { 'Content-Type': 'application/json' }
      if (g.gzip !== 'no') headers['Content-Encoding'] = 'gzip'
      res = await request(`${base}/v1/logs`, { method: 'POST', headers, body })
      break
    }
    case 'status':
      res = await request(`${base}/v1/status`, { method: 'POST', body: g.text })
      break
    case 'compile':
      res = await request(`${base}/v1/compile/authz/allow`, {
        method: 'POST',
        headers: { Accept: g.accept },
        body: g.text,
      })
      break
    case 'other':
      res = await request(`${base}${g.path}`, { method: g.method as 'GET' })
      break
  }
  const text = await res.body.text()
  const retryAfter = res.headers['retry-after']
  return { status: res.statusCode, text, retryAfter: typeof retryAfter === 'string' ? retryAfter : undefined }
}
