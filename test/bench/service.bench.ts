import { loadavg } from 'node:os'
import { gzipSync } from 'node:zlib'
import { Hono } from 'hono'
import { startServer } from '../../core/http/index.js'
import { createLogger } from '../../core/log.js'
import type { NewDecision } from '../../store/service/index.js'
import { BACKENDS, type Backend } from '../store/backends.js'
import { BENCH_ADMIN_TOKEN as ADMIN, startBenchService } from './bench-service.js'

const BATCH = 500
const INTAKE_BATCHES = 40
const SEARCH_ROWS = Number(process.env.REGENT_BENCH_DECISIONS ?? 1_000_000)
const GENERATE_BUDGET_MS = 90_000
const logger = createLogger({ level: 'silent' })

function event(i: number, systemId: string, baseMs: number): string {
  const result = i % 5 === 0 ? 'true' : i % 5 === 1 ? 'false' : '{"allowed":true}'
  return `{"decision_id":"bench-${i}","labels":{"id":"agent-${i % 7}","version":"1.0.0"},"path":"app/authz/allow","input":{"user":"u${i % 1000}","action":"read","resource":"doc-${i % 5000}"},"result":${result},"req_id":${18446744073709551615n - BigInt(i)},"timestamp":"${new Date(baseMs + i).toISOString()}","system-id":"${systemId}"}`
}

/** fetch, retried once when a pooled keep-alive connection turns out to be closed already. */
async function fetchRetry(url: string, init?: RequestInit): Promise<Response> {
  try {
    return await fetch(url, init)
  } catch {
    return fetch(url, init)
  }
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN
}

async function intake(backend: Backend): Promise<void> {
  const s = await startBenchService(backend)
  try {
    const base = Date.now()
    const bodies = Array.from({ length: INTAKE_BATCHES }, (_, b) =>
      gzipSync(
        `[${Array.from({ length: BATCH }, (_, i) => event(b * BATCH + i, s.systemId, base)).join(',')}]`,
      ),
    )
    const started = performance.now()
    for (const body of bodies) {
      const res = await fetch(`${s.service.url}/v1/logs`, {
        method: 'POST',
        headers: {
          Authorization: `Bearer ${s.agentToken}`,
          'Content-Encoding': 'gzip',
          'Content-Type': 'application/json',
        },
        body,
      })
      if (res.status !== 200) throw new Error(`intake answered ${res.status}: ${await res.text()}`)
    }
    const seconds = (performance.now() - started) / 1000
    const events = INTAKE_BATCHES * BATCH
    // Baseline: the same number of rows appended through the store, no HTTP, no parsing.
    const rows: NewDecision[] = Array.from({ length: events }, (_, i) => ({
      decisionId: `baseline-${i}`,
      systemId: s.systemId,
      path: 'app/authz/allow',
      resultKind: 'ALLOWED',
      tsUs: (base + i) * 1000,
      receivedUs: base * 1000,
      raw: event(i, s.systemId, base),
    }))
    const baseStarted = performance.now()
    for (let i = 0; i < rows.length; i += BATCH)
      await s.service.store.decisions.append(rows.slice(i, i + BATCH))
    const baseSeconds = (performance.now() - baseStarted) / 1000
    console.log(
      `   intake ${backend.name}: ${Math.round(events / seconds)} events/s over HTTP (gzip batches of ${BATCH}, ${events} events); ` +
        `store append alone ${Math.round(events / baseSeconds)} rows/s`,
    )
  } finally {
    await s.cleanup()
  }
}

async function search(backend: Backend): Promise<void> {
  const s = await startBenchService(backend, 'limits: { max_decisions_per_page: 1000 }')
  try {
    const base = Date.now() - SEARCH_ROWS
    const kinds = ['ALLOWED', 'DENIED', 'ALLOWED', 'ERROR', 'UNKNOWN']
    const generated = performance.now()
    let stored = 0
    const chunk = 20_000
    while (stored < SEARCH_ROWS && performance.now() - generated < GENERATE_BUDGET_MS) {
      const rows: NewDecision[] = []
      for (let i = stored; i < Math.min(stored + chunk, SEARCH_ROWS); i++) {
        rows.push({
          decisionId: `bench-${i}`,
          systemId: i % 10 === 0 ? 'other' : s.systemId,
          path: i % 2 === 0 ? 'app/authz/allow' : 'app/authz/deny',
          resultKind: kinds[i % 5]!,
          tsUs: (base + i) * 1000,
          receivedUs: (base + i) * 1000,
          raw: event(i, s.systemId, base),
        })
      }
      stored += await s.service.store.decisions.append(rows)
    }
    const genSeconds = (performance.now() - generated) / 1000
    console.log(
      `   search ${backend.name}: ${stored} decisions stored in ${genSeconds.toFixed(1)} s` +
        (stored < SEARCH_ROWS ? ` (time budget hit before ${SEARCH_ROWS})` : ''),
    )
    const mid = new Date(base + Math.floor(stored / 2)).toISOString()
    const late = new Date(base + Math.floor(stored / 2) + 60_000).toISOString()
    const queries: Array<[string, string]> = [
      ['newest 100', ''],
      ['system', `system=${s.systemId}`],
      ['result_kind=ERROR', 'result_kind=ERROR'],
      ['time window', `start_time=${mid}&end_time=${late}`],
      ['field input.user', 'search=input.user:u42'],
      ['text (frequent)', 'search=agent-3'],
      ['text (rare)', 'search=doc-4999x'],
      ['path, ASC', 'search=path:app/authz/deny&order=ASC'],
    ]
    for (const [name, query] of queries) {
      const times: number[] = []
      const until = performance.now() + 5000
      for (let i = 0; i < 30 && performance.now() < until; i++) {
        const t0 = performance.now()
        const res = await fetchRetry(`${s.service.url}/v1/decisions?limit=100&${query}`, {
          headers: { Authorization: `Bearer ${ADMIN}` },
        })
        await res.arrayBuffer()
        if (res.status !== 200) throw new Error(`${name}: ${res.status}`)
        times.push(performance.now() - t0)
      }
      times.sort((a, b) => a - b)
      console.log(
        `     ${name.padEnd(24)} p50 ${quantile(times, 0.5).toFixed(1)} ms, p99 ${quantile(times, 0.99).toFixed(1)} ms (${times.length} runs)`,
      )
    }
  } finally {
    await s.cleanup()
  }
}

/** Requests per second and this process's CPU per request, from `concurrency` loops over `durationMs`. */
async function rate(
  request: () => Promise<number>,
  expected: number,
  concurrency = 16,
  durationMs = 500,
): Promise<{ perSecond: number; cpuUs: number }> {
  let done = 0
  const until = performance.now() + durationMs
  const started = performance.now()
  const cpu = process.cpuUsage()
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < until) {
        const status = await request()
        if (status !== expected) throw new Error(`expected ${expected}, got ${status}`)
        done++
      }
    }),
  )
  const used = process.cpuUsage(cpu)
  return {
    perSecond: done / ((performance.now() - started) / 1000),
    cpuUs: (used.user + used.system) / Math.max(1, done),
  }
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b)
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN
}

/** Rounds of the bundle benchmark; each variant runs once per round, so load changes hit all alike. */
const ROUNDS = 7

async function bundles(): Promise<void> {
  const backend = BACKENDS[0]!
  const s = await startBenchService(backend)
  let server: Awaited<ReturnType<typeof startServer>> | undefined
  try {
    const admin = { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' }
    const modules = Object.fromEntries(
      Array.from({ length: 20 }, (_, m) => [
        `m${m}.rego`,
        `package app.m${m}\n\nallow if input.user == "u${m}"\n`,
      ]),
    )
    await fetch(`${s.service.url}/v1/policies/systems/${s.systemId}/app`, {
      method: 'PUT',
      headers: admin,
      body: JSON.stringify({ modules }),
    })
    const users = Object.fromEntries(Array.from({ length: 2000 }, (_, u) => [`u${u}`, { roles: ['reader'] }]))
    await fetch(`${s.service.url}/v1/data/systems/${s.systemId}/users`, {
      method: 'PUT',
      headers: admin,
      body: JSON.stringify(users),
    })
    const url = `${s.service.url}/v1/bundles/systems/${s.systemId}`
    const agent = { Authorization: `Bearer ${s.agentToken}` }
    const first = await fetch(url, { headers: agent })
    const bytes = new Uint8Array(await first.arrayBuffer())
    const etag = first.headers.get('etag')!
    // Baseline: a bare Hono route answering the same bytes, no auth, no database.
    const bare = new Hono()
    bare.get('/b', (c) =>
      c.body(bytes as Uint8Array<ArrayBuffer>, 200, {
        'Content-Type': 'application/vnd.openpolicyagent.bundles',
      }),
    )
    server = await startServer({ fetch: bare.fetch, host: '127.0.0.1', port: 0, logger, name: 'baseline' })
    const bareUrl = `${server.url}/b`
    const variants = {
      get: () =>
        rate(async () => {
          const res = await fetch(url, { headers: agent })
          await res.arrayBuffer()
          return res.status
        }, 200),
      notModified: () =>
        rate(async () => {
          const res = await fetch(url, { headers: { ...agent, 'If-None-Match': etag } })
          await res.arrayBuffer()
          return res.status
        }, 304),
      bare: () =>
        rate(async () => {
          const res = await fetch(bareUrl)
          await res.arrayBuffer()
          return res.status
        }, 200),
    }
    // Warm-up (JIT of client and server alike), then interleaved rounds; medians reported.
    for (const run of Object.values(variants)) await run()
    const figures = { get: [] as number[], notModified: [] as number[], bare: [] as number[] }
    const cpu = { get: [] as number[], notModified: [] as number[], bare: [] as number[] }
    for (let round = 0; round < ROUNDS; round++) {
      for (const [name, run] of Object.entries(variants) as Array<
        [keyof typeof variants, () => ReturnType<typeof rate>]
      >) {
        const r = await run()
        figures[name].push(r.perSecond)
        cpu[name].push(r.cpuUs)
      }
    }
    const get = median(figures.get)
    const notModified = median(figures.notModified)
    const baseline = median(figures.bare)
    console.log(
      `   bundle (${bytes.byteLength} bytes) GET ${Math.round(get)} req/s, 304 ${Math.round(notModified)} req/s; ` +
        `bare Hono route with the same bytes ${Math.round(baseline)} req/s (16 concurrent, median of ${ROUNDS} interleaved 0.5 s rounds; load average ${loadavg()[0]?.toFixed(2)})`,
    )
    console.log(
      `   bundle vs bare Hono: GET ${((get / baseline) * 100).toFixed(0)}%, 304 ${((notModified / baseline) * 100).toFixed(0)}%; ` +
        `CPU per request (client and server, one process) GET ${median(cpu.get).toFixed(0)} µs, 304 ${median(cpu.notModified).toFixed(0)} µs, bare ${median(cpu.bare).toFixed(0)} µs ` +
        `(bare / GET ${((median(cpu.bare) / median(cpu.get)) * 100).toFixed(0)}%, bare / 304 ${((median(cpu.bare) / median(cpu.notModified)) * 100).toFixed(0)}%)`,
    )
  } finally {
    await server?.stop()
    await s.cleanup()
  }
}

/** Runs the service benchmarks (REGENT_BENCH_SERVICE=intake,search,bundles picks some). */
export async function run(): Promise<void> {
  const parts = new Set((process.env.REGENT_BENCH_SERVICE ?? 'intake,search,bundles').split(','))
  if (parts.has('intake')) {
    for (const backend of BACKENDS) {
      if (!backend.available) {
        console.log(`   ${backend.name}: skipped (REGENT_TEST_PG_URL is not set)`)
        continue
      }
      await intake(backend)
    }
  }
  if (parts.has('search')) {
    for (const backend of BACKENDS) {
      if (backend.available) await search(backend)
    }
  }
  if (parts.has('bundles')) await bundles()
}
