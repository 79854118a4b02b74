/**
 * `regent run -s` figures over HTTP on 127.0.0.1: an RBAC decision through `POST /v1/data` (prepared
 * query cached, input parsed losslessly) and through `POST /v0/data`, a base-document read, and
 * `POST /v1/query` (parsed and compiled per request), beside a bare Hono route answering fixed JSON
 * in the same run. Bounded: 3,000 requests per row, 8 connections, 20 s at most per row.
 */
import { loadavg } from 'node:os'
import { Hono } from 'hono'
import { Agent, request } from 'undici'
import { createRunApp } from '../../agent/app.js'
import { ServerState } from '../../agent/state.js'
import { startServer } from '../../core/http/index.js'
import { createLogger } from '../../core/log.js'
import { parseModule } from '../../core/rego/index.js'
import { type ObjectValue, parseJSON } from '../../core/rego/values/index.js'

const POLICY = `package rbac

default allow := false

allow if {
  some role in data.bindings[input.user]
  some grant in data.roles[role]
  grant.action == input.action
  grant.resource == input.resource
}
`

function rbacData(users: number): ObjectValue {
  const bindings: Record<string, string[]> = {}
  for (let i = 0; i < users; i++) bindings[`user${i}`] = [`role${i % 20}`]
  const roles: Record<string, Array<{ action: string; resource: string }>> = {}
  for (let r = 0; r < 20; r++) roles[`role${r}`] = [{ action: 'read', resource: `doc${r}` }]
  return parseJSON(JSON.stringify({ bindings, roles })) as ObjectValue
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0
}

async function httpLoop(label: string, url: string, body: string | undefined): Promise<void> {
  const agent = new Agent({ connections: 8 })
  const requests = 3000
  const samples: number[] = []
  const deadline = performance.now() + 20_000
  let next = 0
  const started = performance.now()
  await Promise.all(
    Array.from({ length: 8 }, async () => {
      while (next < requests && performance.now() < deadline) {
        next++
        const t = performance.now()
        const res = await request(url, {
          method: body === undefined ? 'GET' : 'POST',
          ...(body !== undefined ? { body } : {}),
          dispatcher: agent,
        })
        await res.body.text()
        if (res.statusCode !== 200) throw new Error(`${label}: HTTP ${res.statusCode}`)
        samples.push(performance.now() - t)
      }
    }),
  )
  const total = performance.now() - started
  await agent.close()
  samples.sort((a, b) => a - b)
  console.log(
    `   ${label.padEnd(46)} ${Math.round((samples.length / total) * 1000)
      .toString()
      .padStart(
        6,
      )} req/s  p50 ${percentile(samples, 0.5).toFixed(2)} ms  p99 ${percentile(samples, 0.99).toFixed(2)} ms`,
  )
}

/** Prints the figures. */
export async function run(): Promise<void> {
  const logger = createLogger({ level: 'warn' })
  const state = new ServerState(
    {
      policies: [{ id: 'rbac.rego', raw: POLICY, module: parseModule(POLICY, { file: 'rbac.rego' }) }],
      data: rbacData(1000),
      bundles: [],
    },
    { regoVersion: 'v1' },
  )
  const bare = new Hono()
  bare.post('/fixed', (c) => c.json({ result: true }))
  const runServer = await startServer({
    fetch: createRunApp({ state, logger, version: 'bench' }).fetch,
    host: '127.0.0.1',
    port: 0,
    logger,
    name: 'bench-run',
  })
  const bareServer = await startServer({
    fetch: bare.fetch,
    host: '127.0.0.1',
    port: 0,
    logger,
    name: 'bench-bare',
  })
  const input = { user: 'user417', action: 'read', resource: 'doc17' }
  console.log(`load: ${process.platform} ${process.arch}, load average ${loadavg()[0]?.toFixed(2)}`)
  console.log('regent run -s over HTTP on 127.0.0.1 (8 connections, 3,000 requests), RBAC with 1,000 users:')
  try {
    // Warm-up (JIT, prepared-query cache), not printed.
    for (let i = 0; i < 300; i++) {
      const res = await request(`${runServer.url}/v1/data/rbac/allow`, {
        method: 'POST',
        body: JSON.stringify({ input }),
      })
      await res.body.text()
    }
    await httpLoop('bare Hono route, fixed JSON (baseline)', `${bareServer.url}/fixed`, '{}')
    await httpLoop(
      'POST /v1/data/rbac/allow',
      `${runServer.url}/v1/data/rbac/allow`,
      JSON.stringify({ input }),
    )
    await httpLoop('POST /v0/data/rbac/allow', `${runServer.url}/v0/data/rbac/allow`, JSON.stringify(input))
    await httpLoop(
      'GET /v1/data/roles/role3 (base document)',
      `${runServer.url}/v1/data/roles/role3`,
      undefined,
    )
    await httpLoop(
      'POST /v1/query (parse + compile per request)',
      `${runServer.url}/v1/query`,
      JSON.stringify({ query: 'data.rbac.allow == true', input }),
    )
  } finally {
    await runServer.stop()
    await bareServer.stop()
  }
}
