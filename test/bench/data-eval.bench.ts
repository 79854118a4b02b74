/**
 * Data evaluation figures: requests per second of the service's `POST /v1/data/systems/{id}/…`
 * (a DataRequest over the system's stored policy and data: the RBAC decision of the run-server
 * bench, 1,000 users) beside `regent run -s` answering the same query over the same policy and
 * data, and a bare Hono route answering fixed JSON, all in the same run on 127.0.0.1.
 * Bounded: 3,000 requests per row, 8 connections, 20 s at most per row.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { Hono } from 'hono'
import { createRunApp } from '../../agent/app.js'
import { ServerState } from '../../agent/state.js'
import { parseConfig } from '../../core/config.js'
import { startServer } from '../../core/http/index.js'
import { createLogger } from '../../core/log.js'
import { parseModule } from '../../core/rego/index.js'
import { type ObjectValue, parseJSON } from '../../core/rego/values/index.js'
import { serviceSectionSchema, startService } from '../../service/index.js'
import { BACKENDS } from '../store/backends.js'
import { httpLoop } from './http-loop.js'

const ADMIN = 'bench-admin-token-0123456789'
const USERS = 1000
const WARM_UP = 300

const POLICY = `package rbac

default allow := false

allow if {
  some role in data.bindings[input.user]
  some grant in data.roles[role]
  grant.action == input.action
  grant.resource == input.resource
}
`

function rbacData(): { bindings: Record<string, string[]>; roles: Record<string, unknown[]> } {
  const bindings: Record<string, string[]> = {}
  for (let i = 0; i < USERS; i++) bindings[`user${i}`] = [`role${i % 20}`]
  const roles: Record<string, Array<{ action: string; resource: string }>> = {}
  for (let r = 0; r < 20; r++) roles[`role${r}`] = [{ action: 'read', resource: `doc${r}` }]
  return { bindings, roles }
}

async function api(base: string, method: string, path: string, body: unknown): Promise<unknown> {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' },
    body: JSON.stringify(body),
  })
  const text = await res.text()
  if (res.status !== 200) throw new Error(`${method} ${path}: HTTP ${res.status}: ${text.slice(0, 300)}`)
  return JSON.parse(text)
}

/** Prints the figures. */
export async function run(): Promise<void> {
  const logger = createLogger({ level: 'silent' })
  const data = rbacData()
  const input = { user: 'user417', action: 'read', resource: 'doc17' }
  const body = JSON.stringify({ input })

  const state = new ServerState(
    {
      policies: [{ id: 'rbac.rego', raw: POLICY, module: parseModule(POLICY, { file: 'rbac.rego' }) }],
      data: parseJSON(JSON.stringify(data)) as ObjectValue,
      bundles: [],
    },
    { regoVersion: 'v1' },
  )
  const runServer = await startServer({
    fetch: createRunApp({ state, logger, version: 'bench' }).fetch,
    host: '127.0.0.1',
    port: 0,
    logger,
    name: 'bench-run',
  })
  const bare = new Hono()
  bare.post('/fixed', (c) => c.json({ result: true }))
  const bareServer = await startServer({
    fetch: bare.fetch,
    host: '127.0.0.1',
    port: 0,
    logger,
    name: 'bare',
  })

  const sqlite = BACKENDS.find((b) => b.name === 'sqlite')!
  const database = await sqlite.create()
  const dataDir = mkdtempSync(join(tmpdir(), 'regent-data-eval-bench-'))
  const service = await startService({
    config: parseConfig('{}', serviceSectionSchema),
    logger,
    addr: '127.0.0.1:0',
    dataDir,
    adminToken: ADMIN,
    databaseSchema: database.schema,
    graceMs: 500,
  })
  try {
    const created = (await api(service.url, 'POST', '/v1/systems', { name: 'rbac', type: 'custom' })) as {
      result: { id: string }
    }
    const id = created.result.id
    await api(service.url, 'PUT', `/v1/policies/systems/${id}/rules`, { modules: { 'rbac.rego': POLICY } })
    await api(service.url, 'PUT', `/v1/data/systems/${id}/bindings`, data.bindings)
    await api(service.url, 'PUT', `/v1/data/systems/${id}/roles`, data.roles)
    const serviceUrl = `${service.url}/v1/data/systems/${id}/rbac/allow`
    const auth = { Authorization: `Bearer ${ADMIN}` }
    // Both answer the same, and true: the figures compare the same work.
    const check = (await api(service.url, 'POST', `/v1/data/systems/${id}/rbac/allow`, { input })) as {
      result: unknown
    }
    const direct = await (await fetch(`${runServer.url}/v1/data/rbac/allow`, { method: 'POST', body })).json()
    if (check.result !== true || (direct as { result: unknown }).result !== true)
      throw new Error(
        `unexpected answers: service ${JSON.stringify(check)}, run -s ${JSON.stringify(direct)}`,
      )
    // Warm-up (JIT, caches), not printed.
    for (let i = 0; i < WARM_UP; i++) {
      await fetch(serviceUrl, { method: 'POST', headers: auth, body }).then((r) => r.text())
      await fetch(`${runServer.url}/v1/data/rbac/allow`, { method: 'POST', body }).then((r) => r.text())
    }
    console.log(`load: ${process.platform} ${process.arch}, load average ${loadavg()[0]?.toFixed(2)}`)
    console.log(`RBAC decision (${USERS} users, 20 roles) over HTTP on 127.0.0.1, 8 connections:`)
    await httpLoop('bare Hono route, fixed JSON (baseline)', `${bareServer.url}/fixed`, '{}')
    await httpLoop('regent run -s  POST /v1/data/rbac/allow', `${runServer.url}/v1/data/rbac/allow`, body)
    await httpLoop('service POST /v1/data/systems/{id}/rbac/allow', serviceUrl, body, { headers: auth })
    await httpLoop(
      'service POST /v1/data/systems/{id} with rego query',
      `${service.url}/v1/data/systems/${id}`,
      JSON.stringify({ input, rego: 'data.rbac.allow' }),
      { headers: auth },
    )
  } finally {
    await service.stop()
    await database.cleanup()
    rmSync(dataDir, { recursive: true, force: true })
    await runServer.stop()
    await bareServer.stop()
  }
}
