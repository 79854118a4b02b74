/**
 * The traffic of `regent run -s -c` has the shape of an OPA agent's (relay-protocol.md): the
 * bundle GET with credentials, service headers, `If-None-Match` and `Prefer: …;wait=N` when long
 * polling; decision logs as a gzip JSON array of EventV1 objects; status as plain JSON
 * UpdateRequestV1. The upstream here records every request.
 */

import { mkdtempSync, readdirSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gunzipSync } from 'node:zlib'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createRunApp } from '../../agent/app.js'
import { agentConfigSchema } from '../../agent/config/schema.js'
import { type AgentPlugins, startAgentPlugins } from '../../agent/plugins/agent-plugins.js'
import { ServerState } from '../../agent/state.js'
import { bundleFromParts, writeBundle } from '../../core/bundle/index.js'
import { fromJS, ObjectValue } from '../../core/rego/values/index.js'
import { eventually } from '../relay/helpers.js'

interface Seen {
  method: string
  url: string
  headers: IncomingMessage['headers']
  body: Buffer
}

const logger = pino({ level: 'silent' })

describe('agent traffic shape', () => {
  const dir = mkdtempSync(join(tmpdir(), 'regent-agent-traffic-'))
  const seen: Seen[] = []
  let server: Server
  let url: string
  let bundleBytes: Uint8Array
  let plugins: AgentPlugins | undefined

  beforeAll(async () => {
    bundleBytes = await writeBundle(
      bundleFromParts({
        modules: { 'app/app.rego': 'package app\n\nimport rego.v1\n\nallow if input.user == "alice"\n' },
        manifest: { revision: 'r1', roots: ['app'] },
      }),
    )
    server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        seen.push({ method: req.method!, url: req.url!, headers: req.headers, body: Buffer.concat(chunks) })
        if (req.url === '/v1/bundles/app') {
          if (req.headers['if-none-match'] === '"r1"') {
            // A long poll with nothing new: held briefly, then 304.
            setTimeout(() => res.writeHead(304, { ETag: '"r1"' }).end(), 200)
            return
          }
          res.writeHead(200, { ETag: '"r1"', 'Content-Type': 'application/vnd.openpolicyagent.bundles' })
          res.end(bundleBytes)
          return
        }
        res.writeHead(200, { 'Content-Type': 'application/json' }).end('{}')
      })
    })
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
    url = `http://127.0.0.1:${(server.address() as { port: number }).port}`
  })
  afterAll(async () => {
    await plugins?.stop()
    await new Promise((resolve) => server.close(resolve))
    rmSync(dir, { recursive: true, force: true })
  })

  const configFor = (serviceUrl: string) =>
    agentConfigSchema.parse({
      services: [
        {
          name: 'up',
          url: `${serviceUrl}/v1`,
          headers: { 'X-Team': 'payments' },
          credentials: { bearer: { token: 'agent-token' } },
        },
      ],
      labels: { region: 'eu-1' },
      bundles: {
        app: {
          service: 'up',
          persist: true,
          polling: { min_delay_seconds: 1, max_delay_seconds: 1, long_polling_timeout_seconds: 5 },
        },
      },
      decision_logs: { service: 'up' },
      status: { service: 'up' },
      persistence_directory: join(dir, 'persist'),
    })

  it('downloads, logs and reports as an OPA agent does', async () => {
    const config = configFor(url)
    // Data of the server's own (local files, API writes) stays beside the downloaded bundle.
    const base = { policies: [], data: fromJS({ local: { n: 1 } }) as ObjectValue, bundles: [] }
    const state = new ServerState(base, { regoVersion: 'v1' })
    plugins = await startAgentPlugins({
      config,
      state,
      instanceId: 'agent-1',
      version: '9.9.9',
      logger,
    })
    await eventually(() => plugins!.bundlesReady(), 10_000, 'bundle activated')
    expect(state.data.get('local')).toBeDefined()
    const app = createRunApp({
      state,
      logger,
      version: '9.9.9',
      instanceId: 'agent-1',
      plugins,
      ...(plugins.decisionLog ? { decisionLog: plugins.decisionLog } : {}),
    })
    const answer = await app.request('/v1/data/app/allow', {
      method: 'POST',
      body: '{"input": {"user": "alice", "n": 12345678901234567890}}',
      headers: { 'Content-Type': 'application/json' },
    })
    const decision = (await answer.json()) as { result: boolean; decision_id: string }
    expect(decision.result).toBe(true)
    expect(decision.decision_id).toMatch(/^[0-9a-f-]{36}$/)

    await eventually(() => seen.some((s) => s.url === '/v1/logs'), 10_000, 'decision log uploaded')
    await eventually(
      () => seen.some((s) => s.url === '/v1/status' && s.body.includes('"active_revision":"r1"')),
      10_000,
      'status posted',
    )
    await eventually(() => seen.filter((s) => s.url === '/v1/bundles/app').length >= 2, 10_000, 'second poll')

    const [first, second] = seen.filter((s) => s.url === '/v1/bundles/app')
    expect(first!.method).toBe('GET')
    expect(first!.headers.authorization).toBe('Bearer agent-token')
    expect(first!.headers['x-team']).toBe('payments')
    expect(first!.headers['user-agent']).toMatch(/^regent\/9\.9\.9 /)
    expect(first!.headers['if-none-match']).toBeUndefined()
    expect(first!.headers.prefer).toBe('modes=snapshot;wait=5')
    expect(second!.headers['if-none-match']).toBe('"r1"')

    const logs = seen.find((s) => s.url === '/v1/logs')!
    expect(logs.method).toBe('POST')
    expect(logs.headers['content-encoding']).toBe('gzip')
    expect(logs.headers['content-type']).toBe('application/json')
    expect(logs.headers.authorization).toBe('Bearer agent-token')
    const text = gunzipSync(logs.body).toString('utf8')
    // Numbers keep their exact text.
    expect(text).toContain('"n":12345678901234567890')
    const events = JSON.parse(text) as Array<Record<string, unknown>>
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({
      labels: { id: 'agent-1', version: '9.9.9', region: 'eu-1' },
      decision_id: decision.decision_id,
      bundles: { app: { revision: 'r1' } },
      path: 'app/allow',
      input: { user: 'alice' },
      result: true,
    })
    expect(typeof events[0]!.timestamp).toBe('string')
    expect(typeof events[0]!.req_id).toBe('number')

    const status = seen.filter((s) => s.url === '/v1/status').at(-1)!
    expect(status.headers['content-type']).toBe('application/json')
    expect(status.headers['content-encoding']).toBeUndefined()
    const report = JSON.parse(status.body.toString('utf8')) as Record<string, Record<string, unknown>>
    expect(report.labels).toEqual({ id: 'agent-1', version: '9.9.9', region: 'eu-1' })
    expect(report.bundles!.app).toMatchObject({ name: 'app', active_revision: 'r1', type: 'snapshot' })
    expect(report.plugins).toMatchObject({ bundle: { state: 'OK' }, status: { state: 'OK' } })

    // persist: true keeps the download for the next start.
    expect(readdirSync(join(dir, 'persist', 'bundles'), { recursive: true }).join(' ')).toContain('meta.json')
    await plugins.stop()
    plugins = undefined
  }, 30_000)

  it('activates the persisted bundle at the next start while the upstream is unreachable', async () => {
    const base = { policies: [], data: new ObjectValue(), bundles: [] }
    const state = new ServerState(base, { regoVersion: 'v1' })
    // Nothing listens on port 9 of loopback (discard): every download fails.
    plugins = await startAgentPlugins({
      config: configFor('http://127.0.0.1:9'),
      state,
      instanceId: 'agent-2',
      version: '9.9.9',
      logger,
    })
    expect(plugins.bundlesReady()).toBe(true)
    expect(state.bundles.map((b) => [b.name, b.revision])).toEqual([['app', 'r1']])
    const run = await state.policy.prepare('x = data.app.allow').eval({ input: fromJS({ user: 'alice' }) })
    expect(run.results).toHaveLength(1)
  }, 30_000)
})
