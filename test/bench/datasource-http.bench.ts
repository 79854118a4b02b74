/**
 * A 50 MB JSON `http` datasource on one service (SQLite): one run triggered with
 * `POST /v1/datasources/{id}` (fetch over HTTP on 127.0.0.1, decode, optional Rego filter, store,
 * and the system's bundle rebuilt before the POST answers), its wall time split into the run's own
 * `status.duration` (fetch + decode + filter) and the rest (store + bundle rebuild), and the
 * process's peak RSS growth, and the longest stall of the event loop (the service's) meanwhile,
 * overall and in the store + rebuild phase. Rows: unfiltered, then filtered with Rego (active
 * users' groups).
 * Baselines in the same run: JSON.parse of the same bytes plus writing them raw to a file; the
 * filtered row's decode and filter done on the main thread in one go.
 * Bounded: two runs of one datasource, each under the run timeout (120 s).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer } from 'node:http'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { parseConfig } from '../../core/config.js'
import { createLogger } from '../../core/log.js'
import { decodeContent } from '../../service/datasources/decode.js'
import { runFilter } from '../../service/datasources/filter.js'
import { serviceSectionSchema, startService } from '../../service/index.js'
import { BACKENDS } from '../store/backends.js'

const ADMIN = 'bench-admin-token-0123456789'
const TARGET_BYTES = 50 * 1024 * 1024
const MB = 1024 * 1024

const FILTER = `package f

import rego.v1

groups := {u.id: u.groups | some u in input.items; u.active}
`

/** About TARGET_BYTES of JSON: `{items: [{id, name, email, active, groups, attributes}, …]}`. */
function document(): { bytes: Buffer; items: number } {
  const parts: string[] = []
  let size = 12
  let i = 0
  while (size < TARGET_BYTES) {
    const item = JSON.stringify({
      id: `user-${i}`,
      name: `User Number ${i}`,
      email: `user.${i}@example.org`,
      active: i % 3 !== 0,
      groups: [`group-${i % 50}`, `team-${i % 7}`],
      attributes: { department: `dept-${i % 40}`, location: `site-${i % 12}`, level: i % 9 },
    })
    parts.push(item)
    size += item.length + 1
    i++
  }
  return { bytes: Buffer.from(`{"items":[${parts.join(',')}]}`), items: i }
}

const rssMb = () => process.memoryUsage().rss / MB

/** A stall of the event loop: when it began (performance.now) and how long it lasted. */
interface Stall {
  at: number
  ms: number
}

/**
 * Samples the RSS every 20 ms while `work` runs; resolves to its result, the highest sample,
 * the longest the event loop was blocked (the service runs in this process) and each stall over
 * 20 ms with its start, so a run's phases can be told apart.
 */
async function withPeakRss<T>(
  work: () => Promise<T>,
): Promise<{ value: T; peakMb: number; blockedMs: number; stalls: Stall[] }> {
  let peakMb = rssMb()
  const delay = monitorEventLoopDelay({ resolution: 10 })
  delay.enable()
  const stalls: Stall[] = []
  let last = performance.now()
  const timer = setInterval(() => {
    const now = performance.now()
    if (now - last > 20 + 20) stalls.push({ at: last, ms: now - last - 20 })
    last = now
    peakMb = Math.max(peakMb, rssMb())
  }, 20)
  try {
    const value = await work()
    return { value, peakMb: Math.max(peakMb, rssMb()), blockedMs: delay.max / 1e6, stalls }
  } finally {
    clearInterval(timer)
    delay.disable()
  }
}

async function api(base: string, method: string, path: string, body?: unknown) {
  const res = await fetch(`${base}${path}`, {
    method,
    headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' },
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  })
  const text = await res.text()
  if (res.status !== 200) throw new Error(`${method} ${path}: HTTP ${res.status}: ${text.slice(0, 300)}`)
  return JSON.parse(text) as { result: Record<string, unknown> }
}

/** Prints the figures. */
export async function run(): Promise<void> {
  const logger = createLogger({ level: 'silent' })
  const { bytes, items } = document()
  const source = createServer((_req, res) => {
    res.writeHead(200, { 'content-type': 'application/json', 'content-length': bytes.length })
    res.end(bytes)
  })
  await new Promise<void>((resolve) => source.listen(0, '127.0.0.1', resolve))
  const sourceUrl = `http://127.0.0.1:${(source.address() as { port: number }).port}/users.json`

  const sqlite = BACKENDS.find((b) => b.name === 'sqlite')!
  const database = await sqlite.create()
  const dataDir = mkdtempSync(join(tmpdir(), 'regent-ds-http-bench-'))
  const service = await startService({
    config: parseConfig(
      'datasources: {scheduler_interval: 1h, timeout: 120s, max_bytes_per_run: 104857600}',
      serviceSectionSchema,
    ),
    logger,
    addr: '127.0.0.1:0',
    dataDir,
    adminToken: ADMIN,
    databaseSchema: database.schema,
    graceMs: 500,
  })
  console.log(`load: ${process.platform} ${process.arch}, load average ${loadavg()[0]?.toFixed(2)}`)
  console.log(`http datasource of ${(bytes.length / MB).toFixed(1)} MB JSON (${items} items), SQLite:`)
  try {
    const system = await api(service.url, 'POST', '/v1/systems', { name: 'bench', type: 'custom' })
    const id = system.result.id as string
    const rows: Array<[string, Record<string, unknown>]> = [
      ['unfiltered', {}],
      ['Rego filter (active users -> groups)', { policy_filter: FILTER, policy_query: 'data.f.groups' }],
    ]
    for (const [label, extra] of rows) {
      const name = label.startsWith('unfiltered') ? 'raw' : 'filtered'
      await api(service.url, 'PUT', `/v1/datasources/systems/${id}/${name}`, {
        category: 'http',
        url: sourceUrl,
        polling_interval: '1h',
        ...extra,
      })
      const rssBefore = rssMb()
      const started = performance.now()
      const {
        value: answer,
        peakMb,
        blockedMs,
        stalls,
      } = await withPeakRss(() => api(service.url, 'POST', `/v1/datasources/systems/${id}/${name}`))
      const total = performance.now() - started
      const status = answer.result as {
        code: string
        message: string
        duration: number
        size: number
        items: number
      }
      if (status.code !== 'ok') throw new Error(`${label}: ${status.message}`)
      // Stalls that began after the run's fetch, decode and filter: the store and the rebuild.
      const storeStallMs = Math.max(
        0,
        ...stalls.filter((x) => x.at >= started + status.duration).map((x) => x.ms),
      )
      const bundle = await fetch(`${service.url}/v1/bundles/systems/${id}`, {
        headers: { Authorization: `Bearer ${ADMIN}` },
      })
      const bundleBytes = (await bundle.arrayBuffer()).byteLength
      console.log(
        `   ${label.padEnd(38)} total ${(total / 1000).toFixed(2)} s = fetch+decode+filter ${(status.duration / 1000).toFixed(2)} s + store+rebuild ${((total - status.duration) / 1000).toFixed(2)} s; ` +
          `${status.items} items stored; bundle ${(bundleBytes / MB).toFixed(1)} MB gz; peak RSS ${Math.round(peakMb)} MB (+${Math.round(peakMb - rssBefore)} MB over the run's start); event loop blocked up to ${(blockedMs / 1000).toFixed(2)} s (store+rebuild: ${Math.round(storeStallMs)} ms)`,
      )
      // The next row starts from a system holding only its own data.
      await api(service.url, 'DELETE', `/v1/datasources/systems/${id}/${name}`)
    }
  } finally {
    await service.stop()
    await database.cleanup()
    rmSync(dataDir, { recursive: true, force: true })
    await new Promise((resolve) => source.close(resolve))
  }
  // Baseline: the least any run must do with these bytes, parse them and write them somewhere.
  const rssBefore = rssMb()
  const started = performance.now()
  const file = join(tmpdir(), `regent-ds-http-baseline-${process.pid}.json`)
  let parseMs = 0
  const { value: parsed, peakMb } = await withPeakRss(async () => {
    const value = JSON.parse(bytes.toString('utf8')) as { items: unknown[] }
    parseMs = performance.now() - started
    writeFileSync(file, bytes)
    return value
  })
  const totalMs = performance.now() - started
  rmSync(file, { force: true })
  // Second baseline: the filtered row's work done in one go on the main thread (decode, filter,
  // write the result), as a run did before the filter left the main thread.
  const filterStarted = performance.now()
  const decoded = decodeContent(bytes, 'json', 'baseline', Number.MAX_SAFE_INTEGER)
  const filtered = await runFilter(FILTER, 'data.f.groups', decoded, { timeoutMs: 0, instructionLimit: 0 })
  const filterMs = performance.now() - filterStarted
  console.log(
    `   ${'baseline: decode + filter, main thread'.padEnd(38)} total ${(filterMs / 1000).toFixed(2)} s (${filtered.items} items; holds the event loop throughout)`,
  )
  console.log(
    `   ${'baseline: JSON.parse + write raw'.padEnd(38)} total ${(totalMs / 1000).toFixed(2)} s (parse ${(parseMs / 1000).toFixed(2)} s, ${parsed.items.length} items); peak RSS ${Math.round(peakMb)} MB (+${Math.round(peakMb - rssBefore)} MB)`,
  )
}
