/**
 * The service's decision-log ingest (`POST /v1/logs`, the aggregation point of every relay), on
 * SQLite and on PostgreSQL (when REGENT_TEST_PG_URL is set; a schema of its own, dropped after),
 * beside raw inserts of the same rows into the same table in the same run:
 *  - ingest: SENDERS relays post gzip batches of BATCH events concurrently (undici pool);
 *  - raw: the driver alone (better-sqlite3 / pg), one multi-row INSERT … ON CONFLICT DO NOTHING
 *    of BATCH rows per transaction, on one connection, with the service's durability settings
 *    (SQLite: WAL, synchronous FULL), rows already derived (no HTTP, no parsing).
 * Rounds alternate ingest and raw; best and median of each, and of the per-round ratio, are
 * printed with the machine's load (goals: >= 50,000 events/s and >= 60% of raw), and the median
 * CPU this process spent per event in each (process.cpuUsage: all its threads).
 * Every loop is bounded in count and time.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import Database from 'better-sqlite3'
import pg from 'pg'
import { Pool } from 'undici'
import { parse as parseYaml } from 'yaml'
import { parseConfig } from '../../core/config.js'
import { createLogger } from '../../core/log.js'
import { decisionsFromBatch } from '../../service/decision-events.js'
import { type RunningService, serviceSectionSchema, startService } from '../../service/index.js'
import type { NewDecision } from '../../store/service/index.js'
import { BACKENDS, type Backend } from '../store/backends.js'

const ADMIN = 'bench-admin-token-0123456789'
const BATCH = 500
const SENDERS = 4
const ROUND_EVENTS = 50_000
const ROUND_TIME_LIMIT_MS = 6_000
const ROUNDS = Number(process.env.REGENT_BENCH_ROUNDS ?? 3)
const logger = createLogger({ level: 'silent' })
const fmt = (n: number) => Math.round(n).toLocaleString('en-US')

/** An OPA decision event of ~600 bytes (a number beyond 2^53 included, as OPA's req_id is). */
function event(id: string, i: number, baseMs: number): string {
  const result = i % 5 === 0 ? 'true' : i % 5 === 1 ? 'false' : '{"allowed":true}'
  return `{"decision_id":"${id}","labels":{"id":"agent-${i % 7}","version":"1.0.0"},"path":"app/authz/allow","input":{"user":"u${i % 1000}","action":"read","resource":"doc-${i % 5000}","headers":{"user-agent":"curl/8.5.0","x-request-id":"${(i * 2654435761) % 4294967296}"}},"result":${result},"req_id":${18446744073709551615n - BigInt(i)},"metrics":{"timer_rego_query_eval_ns":${10_000 + (i % 977)}},"timestamp":"${new Date(baseMs + i).toISOString()}"}`
}

/** Batch texts of BATCH events with ids `prefix-<n>`, `count` events in all. */
function batches(prefix: string, count: number, baseMs: number): string[] {
  const out: string[] = []
  for (let b = 0; b < count / BATCH; b++) {
    const events = Array.from({ length: BATCH }, (_, k) =>
      event(`${prefix}-${b * BATCH + k}`, b * BATCH + k, baseMs),
    )
    out.push(`[${events.join(',')}]`)
  }
  return out
}

interface Started {
  service: RunningService
  agentToken: string
  systemId: string
  database: { url: string; schema?: string }
  cleanup(): Promise<void>
}

async function start(backend: Backend): Promise<Started> {
  const database = await backend.create()
  const dataDir = mkdtempSync(join(tmpdir(), 'regent-ingest-bench-'))
  const config = parseConfig('{}', serviceSectionSchema)
  if (backend.name === 'postgres') config.database.url = database.url
  const service = await startService({
    config,
    logger,
    addr: '127.0.0.1:0',
    dataDir,
    adminToken: ADMIN,
    databaseSchema: database.schema,
    graceMs: 500,
  })
  const headers = { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' }
  const created = await fetch(`${service.url}/v1/systems`, {
    method: 'POST',
    headers,
    body: JSON.stringify({ name: 'bench', type: 'custom' }),
  })
  const systemId = ((await created.json()) as { result: { id: string } }).result.id
  const opa = parseYaml(
    await (await fetch(`${service.url}/v1/systems/${systemId}/assets/opa-config`, { headers })).text(),
  )
  const agentToken = opa.services[0].credentials.bearer.token as string
  return {
    service,
    agentToken,
    systemId,
    database: {
      url: backend.name === 'postgres' ? database.url : join(dataDir, 'service.db'),
      schema: database.schema,
    },
    async cleanup() {
      await service.stop()
      await database.cleanup()
      rmSync(dataDir, { recursive: true, force: true })
    },
  }
}

/** Events/s of SENDERS concurrent posters of `bodies` (gzip). */
async function ingest(s: Started, bodies: Buffer[]): Promise<Measured> {
  const pool = new Pool(s.service.url, { connections: SENDERS, pipelining: 1 })
  let next = 0
  let stored = 0
  const started = performance.now()
  const sender = async () => {
    while (next < bodies.length && performance.now() - started < ROUND_TIME_LIMIT_MS) {
      const body = bodies[next++]!
      const res = await pool.request({
        path: '/v1/logs',
        method: 'POST',
        headers: {
          authorization: `Bearer ${s.agentToken}`,
          'content-type': 'application/json',
          'content-encoding': 'gzip',
        },
        body,
      })
      const text = await res.body.text()
      if (res.statusCode !== 200) throw new Error(`ingest answered ${res.statusCode}: ${text}`)
      stored += BATCH
    }
  }
  await Promise.all(Array.from({ length: SENDERS }, sender))
  const seconds = (performance.now() - started) / 1000
  await pool.close()
  return { rate: stored / seconds, count: stored }
}

/** Rows (events) per second of a round, and how many were stored. */
interface Measured {
  rate: number
  count: number
}

/** `run`'s result, with this process's CPU (all threads: service, client, workers) per row. */
async function withCpu(run: () => Measured | Promise<Measured>): Promise<Measured & { cpuUs: number }> {
  const before = process.cpuUsage()
  const measured = await run()
  const used = process.cpuUsage(before)
  return { ...measured, cpuUs: (used.user + used.system) / Math.max(1, measured.count) }
}

const COLUMNS = '(decision_id, system_id, path, result_kind, ts_us, received_us, raw)'

function values(rows: number, dollar: boolean): string {
  let n = 0
  const p = () => (dollar ? `$${++n}` : '?')
  return Array.from({ length: rows }, () => `(${[p(), p(), p(), p(), p(), p(), p()].join(', ')})`).join(', ')
}

function params(rows: NewDecision[]): unknown[] {
  const out: unknown[] = []
  for (const d of rows) out.push(d.decisionId, d.systemId, d.path, d.resultKind, d.tsUs, d.receivedUs, d.raw)
  return out
}

/** Rows/s of raw inserts on SQLite: one connection, WAL, synchronous FULL, BATCH rows per commit. */
function rawSqlite(file: string, groups: NewDecision[][]): Measured {
  const db = new Database(file)
  try {
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = FULL')
    db.pragma('busy_timeout = 5000')
    const insert = db.prepare(
      `INSERT INTO decisions ${COLUMNS} VALUES ${values(BATCH, false)} ON CONFLICT DO NOTHING`,
    )
    let stored = 0
    const started = performance.now()
    for (const group of groups) {
      if (performance.now() - started > ROUND_TIME_LIMIT_MS) break
      stored += db.transaction(() => insert.run(params(group)).changes).immediate()
    }
    return { rate: stored / ((performance.now() - started) / 1000), count: stored }
  } finally {
    db.close()
  }
}

/** Rows/s of raw inserts on PostgreSQL: one connection, BATCH rows per transaction. */
async function rawPostgres(
  url: string,
  schema: string | undefined,
  groups: NewDecision[][],
  intake: { lastAppendAt: number },
): Promise<Measured> {
  const client = new pg.Client({ connectionString: url })
  await client.connect()
  try {
    if (schema) await client.query(`SET search_path TO "${schema}", public`)
    const text = `INSERT INTO decisions ${COLUMNS} VALUES ${values(BATCH, true)} ON CONFLICT DO NOTHING`
    let stored = 0
    const started = performance.now()
    for (const group of groups) {
      if (performance.now() - started > ROUND_TIME_LIMIT_MS) break
      // Rows arriving, as far as the service's background text indexer can tell: it yields to
      // them as it yields to ingest (else it indexes flat out and slows raw down on PostgreSQL).
      intake.lastAppendAt = performance.now()
      await client.query('BEGIN')
      stored += (await client.query({ name: 'bench-raw-insert', text, values: params(group) })).rowCount ?? 0
      await client.query('COMMIT')
    }
    return { rate: stored / ((performance.now() - started) / 1000), count: stored }
  } finally {
    await client.end()
  }
}

const median = (v: number[]) => {
  const s = [...v].sort((a, b) => a - b)
  const m = s.length >> 1
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2
}

async function figures(backend: Backend): Promise<void> {
  const s = await start(backend)
  try {
    const ingestRates: number[] = []
    const rawRates: number[] = []
    const ratios: number[] = []
    const rawCpu: number[] = []
    const ingestCpu: number[] = []
    const context = { tokenSystemId: s.systemId, receivedUs: Date.now() * 1000, maxEvents: 100_000 }
    for (let round = 0; round < ROUNDS; round++) {
      const base = Date.now()
      const bodies = batches(`http-${round}`, ROUND_EVENTS, base).map((t) => gzipSync(t))
      // The same kind of rows, derived as the service derives them (not timed), fresh ids.
      const groups = batches(`raw-${round}`, ROUND_EVENTS, base).map((t) => decisionsFromBatch(t, context))
      const raw = await withCpu(() =>
        backend.name === 'sqlite'
          ? rawSqlite(s.database.url, groups)
          : rawPostgres(s.database.url, s.database.schema, groups, s.service.store.decisions),
      )
      const http = await withCpu(() => ingest(s, bodies))
      rawRates.push(raw.rate)
      ingestRates.push(http.rate)
      rawCpu.push(raw.cpuUs)
      ingestCpu.push(http.cpuUs)
      ratios.push(http.rate / raw.rate)
    }
    const both = (v: number[]) => `${fmt(Math.max(...v))} / ${fmt(median(v))}`
    const pct = (r: number) => `${(r * 100).toFixed(0)}%`
    console.log(
      `   ${backend.name.padEnd(8)} (best / median of ${ROUNDS}): ingest ${both(ingestRates)} events/s over HTTP (${SENDERS} senders, gzip batches of ${BATCH}); raw inserts ${both(rawRates)} rows/s; ingest / raw of its round ${pct(Math.max(...ratios))} / ${pct(median(ratios))} (goals >= 50,000/s and >= 60%)`,
    )
    // Steadier than rates on a shared machine; the database server's CPU (PostgreSQL) is not in it.
    console.log(
      `   ${''.padEnd(8)} this process's CPU per event (median): ingest ${median(ingestCpu).toFixed(1)} µs (service, its parse worker and the HTTP client), raw ${median(rawCpu).toFixed(1)} µs`,
    )
  } finally {
    await s.cleanup()
  }
}

/** Prints the figures (see the module comment). */
export async function run(): Promise<void> {
  const load = () => loadavg()[0]!.toFixed(1)
  console.log(`   machine: ${cpus().length} cores, load average ${load()} at start`)
  // REGENT_BENCH_BACKENDS=postgres (or sqlite) runs only those backends (both by default).
  const only = process.env.REGENT_BENCH_BACKENDS?.split(',')
  for (const backend of BACKENDS) {
    if (only && !only.includes(backend.name)) continue
    if (!backend.available) {
      console.log(`   ${backend.name}: skipped (REGENT_TEST_PG_URL is not set)`)
      continue
    }
    await figures(backend)
  }
  console.log(`   load average ${load()} at the end`)
}
