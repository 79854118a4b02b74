/**
 * The service's decision-log ingest (`POST /v1/logs`, the aggregation point of every relay), on
 * SQLite and on PostgreSQL (when REGENT_TEST_PG_URL is set; a schema of its own, dropped after),
 * beside raw inserts of the same rows into the same table in the same run:
 *  - ingest: SENDERS relays post gzip batches of BATCH events concurrently (undici pool), from a
 *    process of their own (ingest-senders.ts), so this process's CPU is the service's alone;
 *  - raw: the driver alone (better-sqlite3 / pg), one multi-row INSERT … ON CONFLICT DO NOTHING
 *    of BATCH rows per transaction, on one connection, with the service's durability settings
 *    (SQLite: WAL, synchronous FULL), rows already derived (no HTTP, no parsing).
 * Before each round the text indexer is brought up to date and SQLite's WAL checkpointed (not
 * timed): neither kind of round indexes the other's rows, or checkpoints them, on its clock.
 * Rounds alternate ingest and raw; best and median of each, and of the per-round ratio, are
 * printed with the machine's load (goals: >= 50,000 events/s and >= 60% of raw), and the median
 * CPU this process spent per event in each (process.cpuUsage: all its threads).
 * Every loop is bounded in count and time.
 */
import { type ChildProcess, fork } from 'node:child_process'
import { readdirSync, readFileSync } from 'node:fs'
import { cpus, loadavg } from 'node:os'
import { fileURLToPath } from 'node:url'
import Database from 'better-sqlite3'
import pg from 'pg'
import { createLogger } from '../../core/log.js'
import { decisionsFromBatch } from '../../service/decision-events.js'
import type { NewDecision } from '../../store/service/index.js'
import { BACKENDS, type Backend } from '../store/backends.js'
import { type BenchService, startBenchService } from './bench-service.js'
import { BATCH, batches } from './ingest-events.js'
import { SENDERS, type SenderCommand, type SenderReply } from './ingest-senders.js'

const ROUND_EVENTS = 50_000
const ROUND_TIME_LIMIT_MS = 6_000
const ROUNDS = Number(process.env.REGENT_BENCH_ROUNDS ?? 3)
const _logger = createLogger({ level: 'silent' })
const fmt = (n: number) => Math.round(n).toLocaleString('en-US')

/** The sender process (ingest-senders.ts): one per backend, killed at the end. */
class Senders {
  readonly #child: ChildProcess
  #waiting: ((m: SenderReply) => void) | undefined

  constructor() {
    this.#child = fork(fileURLToPath(new URL('./ingest-senders.ts', import.meta.url)), [], {
      execArgv: process.execArgv,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    })
    this.#child.on('message', (m: SenderReply) => this.#waiting?.(m))
  }

  #ask(command: SenderCommand): Promise<SenderReply> {
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => reject(new Error('the sender process did not answer')), 60_000)
      this.#waiting = (m) => {
        clearTimeout(timer)
        if (m.kind === 'failed') reject(new Error(m.message))
        else resolve(m)
      }
      this.#child.send(command)
    })
  }

  /** Builds and gzips the round's batches in the sender process (not timed). */
  async prepare(prefix: string, count: number, baseMs: number): Promise<void> {
    await this.#ask({ kind: 'prepare', prefix, count, baseMs })
  }

  /** Sends them; events/s, and the sender process's CPU per event. */
  async send(s: BenchService): Promise<Measured & { clientCpuUs: number }> {
    const m = await this.#ask({
      kind: 'go',
      url: s.service.url,
      token: s.agentToken,
      limitMs: ROUND_TIME_LIMIT_MS,
    })
    if (m.kind !== 'done') throw new Error(`unexpected answer ${m.kind}`)
    return { rate: m.stored / m.seconds, count: m.stored, clientCpuUs: m.cpuUs / Math.max(1, m.stored) }
  }

  close(): void {
    this.#child.kill()
  }
}

/**
 * Indexes every stored row not indexed yet, then (SQLite) checkpoints the WAL into the database
 * file, not timed and bounded: each round starts with the text indexer current and an empty WAL,
 * so neither kind of round indexes the other's rows, or copies them out of the WAL, on its clock.
 */
async function caughtUp(s: BenchService, backend: Backend): Promise<void> {
  const started = performance.now()
  while (performance.now() - started < 60_000 && (await s.service.store.decisions.indexText(5000)) > 0) {}
  if (backend.name !== 'sqlite') return
  const db = new Database(s.database.url)
  try {
    db.pragma('busy_timeout = 5000')
    db.pragma('wal_checkpoint(TRUNCATE)')
  } finally {
    db.close()
  }
}

/** Rows (events) per second of a round, and how many were stored. */
interface Measured {
  rate: number
  count: number
  /** The PostgreSQL server's CPU per row, when the round measured it itself (see rawPostgres). */
  serverCpuUs?: number
}

/**
 * CPU (µs) used so far by every process of this machine named `postgres` (the server and its
 * backends), from /proc; 0 where /proc cannot be read. User and system clock ticks at 100 per
 * second, the kernel's USER_HZ on Linux.
 */
function postgresCpuUs(): number {
  let ticks = 0
  let pids: string[]
  try {
    pids = readdirSync('/proc').filter((name) => /^\d+$/.test(name))
  } catch {
    return 0
  }
  for (const pid of pids) {
    try {
      const stat = readFileSync(`/proc/${pid}/stat`, 'utf8')
      const close = stat.lastIndexOf(')')
      if (stat.slice(stat.indexOf('(') + 1, close) !== 'postgres') continue
      const fields = stat.slice(close + 2).split(' ')
      ticks += Number(fields[11]) + Number(fields[12])
    } catch {
      // The process ended meanwhile.
    }
  }
  return ticks * 10_000
}

/**
 * `run`'s result, with this process's CPU (all threads: the service and its workers) per row, and
 * the PostgreSQL server's (every `postgres` process on the machine: only this bench writes to it).
 */
async function withCpu<M extends Measured>(
  run: () => M | Promise<M>,
): Promise<M & { cpuUs: number; serverCpuUs: number }> {
  const before = process.cpuUsage()
  const serverBefore = postgresCpuUs()
  const measured = await run()
  const used = process.cpuUsage(before)
  const rows = Math.max(1, measured.count)
  return {
    ...measured,
    cpuUs: (used.user + used.system) / rows,
    serverCpuUs: measured.serverCpuUs ?? (postgresCpuUs() - serverBefore) / rows,
  }
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
    // Read before the client ends: its server process exits with it, and the CPU of a process
    // gone is no longer in /proc (read after, raw's own inserts would not count).
    const serverBefore = postgresCpuUs()
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
    const rate = stored / ((performance.now() - started) / 1000)
    return { rate, count: stored, serverCpuUs: (postgresCpuUs() - serverBefore) / Math.max(1, stored) }
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
  const s = await startBenchService(backend)
  const senders = new Senders()
  try {
    const ingestRates: number[] = []
    const rawRates: number[] = []
    const ratios: number[] = []
    const rawCpu: number[] = []
    const ingestCpu: number[] = []
    const clientCpu: number[] = []
    const rawServerCpu: number[] = []
    const ingestServerCpu: number[] = []
    const context = { tokenSystemId: s.systemId, receivedUs: Date.now() * 1000, maxEvents: 100_000 }
    for (let round = 0; round < ROUNDS; round++) {
      const base = Date.now()
      await senders.prepare(`http-${round}`, ROUND_EVENTS, base)
      // The same kind of rows, derived as the service derives them (not timed), fresh ids.
      const groups = batches(`raw-${round}`, ROUND_EVENTS, base).map((t) => decisionsFromBatch(t, context))
      await caughtUp(s, backend)
      const raw = await withCpu(() =>
        backend.name === 'sqlite'
          ? rawSqlite(s.database.url, groups)
          : rawPostgres(s.database.url, s.database.schema, groups, s.service.store.decisions),
      )
      await caughtUp(s, backend)
      const http = await withCpu(() => senders.send(s))
      rawRates.push(raw.rate)
      ingestRates.push(http.rate)
      rawCpu.push(raw.cpuUs)
      ingestCpu.push(http.cpuUs)
      clientCpu.push(http.clientCpuUs)
      rawServerCpu.push(raw.serverCpuUs)
      ingestServerCpu.push(http.serverCpuUs)
      ratios.push(http.rate / raw.rate)
    }
    const both = (v: number[]) => `${fmt(Math.max(...v))} / ${fmt(median(v))}`
    const pct = (r: number) => `${(r * 100).toFixed(0)}%`
    console.log(
      `   ${backend.name.padEnd(8)} (best / median of ${ROUNDS}): ingest ${both(ingestRates)} events/s over HTTP (${SENDERS} senders, gzip batches of ${BATCH}); raw inserts ${both(rawRates)} rows/s; ingest / raw of its round ${pct(Math.max(...ratios))} / ${pct(median(ratios))} (goals >= 50,000/s and >= 60%)`,
    )
    // Steadier than rates on a shared machine; the database server's CPU (PostgreSQL) is not in it.
    console.log(
      `   ${''.padEnd(8)} this process's CPU per event (median): ingest ${median(ingestCpu).toFixed(1)} µs (the service and its parse worker), raw ${median(rawCpu).toFixed(1)} µs; the senders' process ${median(clientCpu).toFixed(1)} µs`,
    )
    // PostgreSQL runs on the same cores: what one row costs the server bounds the rate any client
    // can reach on this machine (cores / the CPU per row of everything that runs).
    if (backend.name !== 'sqlite')
      console.log(
        `   ${''.padEnd(8)} the PostgreSQL server's CPU per row (median, all its processes): ingest ${median(ingestServerCpu).toFixed(1)} µs, raw ${median(rawServerCpu).toFixed(1)} µs; ${cpus().length} cores / (server + service + senders per event) = ${fmt((cpus().length * 1e6) / (median(ingestServerCpu) + median(ingestCpu) + median(clientCpu)))} events/s at most`,
      )
  } finally {
    senders.close()
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
