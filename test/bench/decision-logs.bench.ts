/**
 * Decision-log figures, each with `sync: full` and `sync: normal`, side by side:
 *  - intake events/s: a relay process (intake + buffer) takes gzip requests of 100 events of
 *    ~1 KB from several concurrent agents; the baseline is raw better-sqlite3 inserts of the same
 *    rows into the same table and indexes, in this run (goal ≥ 100k events/s and ≥ 50% of raw);
 *  - forwarding events/s: the relay drains what intake stored to an upstream that answers 204
 *    (32 KiB batches like OPA, and 1 MiB batches as for the regent service);
 *  - RSS of a relay process with 1M events buffered (goal ≤ 100 MB), and how long filling and
 *    opening that buffer took.
 * Every loop is bounded in count and time.
 */
import { spawn } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs'
import { createServer } from 'node:http'
import type { AddressInfo } from 'node:net'
import { cpus, loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import Database from 'better-sqlite3'
import { Pool, request } from 'undici'
import { splitEvents } from '../../core/decision-events/index.js'
import type { DecisionLogsStatus } from '../../relay/decision-logs/index.js'
import { DecisionBuffer, type RawEvent } from '../../store/decision-buffer/index.js'
import { makeEvent } from '../support/logs-agent.js'
import { type StartedChild, startTsChild } from '../support/logs-child.js'
import { builtEntry } from './built.js'

const RELAY = 'test/support/decision-logs-relay.ts'
const EVENTS_PER_REQUEST = 100
const AGENTS = 8
// Raw and intake runs alternate in short rounds and the best of each counts: on a shared
// machine the best round is the one least disturbed by others.
const ROUNDS = Number(process.env.REGENT_BENCH_ROUNDS ?? 5)
const INTAKE_EVENTS = 100_000
const INTAKE_TIME_LIMIT_MS = 4_000
const BIG_BUFFER_EVENTS = 1_000_000
const BIG_FILL_TIME_LIMIT_MS = 90_000
const SYNCS = ['full', 'normal'] as const
type Sync = (typeof SYNCS)[number]
// REGENT_BENCH_PARTS=intake,forward,rss runs only those parts (all by default).
// Intake is measured with each of these parse_workers settings (REGENT_BENCH_WORKERS=1,0).
const WORKER_COUNTS = (process.env.REGENT_BENCH_WORKERS ?? '1,0').split(',').map(Number)
const PARTS = new Set((process.env.REGENT_BENCH_PARTS ?? 'intake,forward,rss').split(','))

const fmt = (n: number) => Math.round(n).toLocaleString('en-US')
const mb = (bytes: number) => `${(bytes / 1024 / 1024).toFixed(0)} MB`

/** 1,000 distinct request bodies (100 events each), cycled by the agents. */
function requestBodies(): { bodies: Buffer[]; rows: RawEvent[][] } {
  const bodies: Buffer[] = []
  const rows: RawEvent[][] = []
  for (let r = 0; r < 1000; r++) {
    const texts = Array.from({ length: EVENTS_PER_REQUEST }, (_, k) =>
      makeEvent(`agent-${r % AGENTS}`, r * 100 + k, 1000),
    )
    const text = `[${texts.join(',')}]`
    bodies.push(gzipSync(text))
    rows.push(splitEvents(text).events)
  }
  return { bodies, rows }
}

function bufferAt(dir: string, sync: Sync, maxBytes = 8 * 1024 ** 3): DecisionBuffer {
  return DecisionBuffer.open({
    path: join(dir, 'decision-logs.db'),
    sync,
    maxBytes,
    overflow: 'backpressure',
    busyTimeoutMs: 1000,
    deadLetterMaxEvents: 1000,
    deadLetterMaxBytes: 1024 ** 2,
    integrityCheck: 'off',
  })
}

/** Events/s and CPU microseconds per event (all threads of the process doing the work). */
interface Rate {
  perSecond: number
  cpuMicros: number
}

/**
 * Raw inserts of the same rows through a prepared statement, `perTransaction` rows per commit,
 * into a file made by the buffer (same tables, indexes and page size) with the buffer's
 * connection settings (WAL, sync, cache size).
 */
function rawInserts(rows: RawEvent[][], sync: Sync, perTransaction: number): Rate {
  const dir = mkdtempSync(join(tmpdir(), 'regent-bench-raw-'))
  try {
    // The buffer creates the same tables and indexes; the inserts below bypass it.
    bufferAt(dir, sync).close()
    const db = new Database(join(dir, 'decision-logs.db'))
    db.pragma('journal_mode = WAL')
    db.pragma(`synchronous = ${sync}`)
    db.pragma('cache_size = -2048')
    const insert = db.prepare(
      'INSERT INTO events (received_at, bytes, decision_id, timestamp, agent_id, body) VALUES (?, ?, ?, ?, ?, ?)',
    )
    const flat = rows.flat()
    const now = Date.now()
    const tx = db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) {
        const e = flat[i % flat.length]!
        insert.run(now, e.text.length, e.decisionId, e.timestamp, e.agentId, e.text)
      }
    })
    const total = INTAKE_EVENTS
    const cpu = process.cpuUsage()
    const started = performance.now()
    for (let i = 0; i < total && performance.now() - started < INTAKE_TIME_LIMIT_MS; i += perTransaction) {
      tx(i, Math.min(total, i + perTransaction))
    }
    const seconds = (performance.now() - started) / 1000
    const used = process.cpuUsage(cpu)
    const count = (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n
    db.close()
    return { perSecond: count / seconds, cpuMicros: (used.user + used.system) / count }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function startRelay(
  dir: string,
  sync: Sync,
  upstream = '-',
  extra = '',
  bufferExtra = '',
): Promise<StartedChild<{ url: string; pid: number }>> {
  return startTsChild<{ url: string; pid: number }>(RELAY, [dir, upstream], {
    env: {
      REGENT_DECISION_LOGS: `buffer: {sync: ${sync}, max_bytes: ${8 * 1024 ** 3}${bufferExtra}}\n${extra}`,
      REGENT_LOG_LEVEL: 'error',
    },
    timeoutMs: 120_000,
  })
}

async function stopRelay(relay: StartedChild<unknown>): Promise<void> {
  relay.child.kill('SIGTERM')
  await relay.exited
}

async function relayStatus(url: string): Promise<DecisionLogsStatus> {
  const res = await request(`${url}/v1/relay/status`)
  return (await res.body.json()) as DecisionLogsStatus
}

function rssOf(pid: number): number {
  const line = readFileSync(`/proc/${pid}/status`, 'utf8').match(/VmRSS:\s+(\d+) kB/)
  return line ? Number(line[1]) * 1024 : Number.NaN
}

/**
 * RSS split as the kernel counts it: anonymous memory (heaps, SQLite's cache) and file pages
 * (mostly the node binary's code, shared with every other node process on the machine).
 */
function rssParts(pid: number): string {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8')
  const kb = (key: string) => Number(status.match(new RegExp(`${key}:\\s+(\\d+) kB`))?.[1] ?? Number.NaN)
  return `anonymous ${mb(kb('RssAnon') * 1024)}, file ${mb(kb('RssFile') * 1024)}`
}

/** CPU time (user + system, all threads) a process has used so far, in microseconds. */
function cpuMicrosOf(pid: number): number {
  // Fields after the command name; utime and stime are the 12th and 13th, in clock ticks (100/s).
  const fields = readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ')
  return (Number(fields[11]) + Number(fields[12])) * 10_000
}

/** Posts bodies from AGENTS concurrent agents until INTAKE_EVENTS are stored. */
async function measureIntake(url: string, pid: number, bodies: Buffer[]): Promise<Rate> {
  const pool = new Pool(url, { connections: AGENTS, pipelining: 1 })
  let next = 0
  let stored = 0
  const requests = INTAKE_EVENTS / EVENTS_PER_REQUEST
  const cpu = cpuMicrosOf(pid)
  const started = performance.now()
  const agent = async () => {
    while (next < requests && performance.now() - started < INTAKE_TIME_LIMIT_MS) {
      const body = bodies[next++ % bodies.length]!
      const res = await pool.request({
        path: '/v1/logs',
        method: 'POST',
        headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
        body,
      })
      await res.body.dump()
      if (res.statusCode !== 204) throw new Error(`intake answered ${res.statusCode}`)
      stored += EVENTS_PER_REQUEST
    }
  }
  await Promise.all(Array.from({ length: AGENTS }, agent))
  const seconds = (performance.now() - started) / 1000
  const used = cpuMicrosOf(pid) - cpu
  await pool.close()
  return { perSecond: stored / seconds, cpuMicros: used / stored }
}

/** An upstream that drains bodies and answers 204. */
async function startSink(): Promise<{ url: string; close: () => Promise<void> }> {
  const server = createServer((req, res) => {
    req.resume()
    req.on('end', () => {
      res.writeHead(204)
      res.end()
    })
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return { url: `http://127.0.0.1:${port}/logs`, close: () => new Promise((r) => server.close(() => r())) }
}

/** Starts a relay on a filled buffer and times how long it takes to empty it; events/s. */
async function measureForwarding(
  dir: string,
  sync: Sync,
  sinkUrl: string,
  batchBytes: number,
): Promise<number> {
  const relay = await startRelay(dir, sync, sinkUrl, `upload: {max_batch_bytes: ${batchBytes}}`)
  try {
    const first = await relayStatus(relay.ready.url)
    const total = first.buffer.events + first.upload.uploaded_events
    const started = performance.now()
    let status = first
    while (status.buffer.events > 0 && performance.now() - started < 60_000) {
      await new Promise((r) => setTimeout(r, 50))
      status = await relayStatus(relay.ready.url)
    }
    return (total - status.buffer.events) / ((performance.now() - started) / 1000)
  } finally {
    await stopRelay(relay)
  }
}

/** The test relay as plain JavaScript, as a build ships it (see built.ts). */
function compiledRelay(): string | undefined {
  return builtEntry(RELAY, 'relay.mjs')
}

/** Starts the compiled relay (see compiledRelay) with plain node; resolves once it listens. */
async function startCompiledRelay(
  script: string,
  dir: string,
  sync: Sync,
  extra: string,
  bufferExtra: string,
): Promise<{ url: string; pid: number; stop: () => Promise<void> }> {
  const child = spawn(process.execPath, [script, dir, '-'], {
    env: {
      ...process.env,
      REGENT_DECISION_LOGS: `buffer: {sync: ${sync}, max_bytes: ${8 * 1024 ** 3}${bufferExtra}}\n${extra}`,
      REGENT_LOG_LEVEL: 'error',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  })
  const exited = new Promise((resolve) => child.once('exit', resolve))
  const ready = await new Promise<{ url: string; pid: number }>((resolve, reject) => {
    const timer = setTimeout(() => {
      child.kill('SIGKILL')
      reject(new Error('the compiled relay did not start in 120 s'))
    }, 120_000)
    let out = ''
    child.stdout!.on('data', (d: Buffer) => {
      out += d.toString()
      const line = out.split('\n').find((l) => l.includes('"url"'))
      if (line) {
        clearTimeout(timer)
        resolve(JSON.parse(line) as { url: string; pid: number })
      }
    })
    child.once('exit', (code) => reject(new Error(`the compiled relay exited (${code})`)))
  })
  return {
    ...ready,
    stop: async () => {
      child.kill('SIGTERM')
      await exited
    },
  }
}

/** How long the built relay is left without requests before its RSS is read a second time. */
const QUIET_MS = 12_000

/** Fills a buffer with up to 1M events (bounded in time), then measures a relay's RSS on it. */
async function measureBigBuffer(rows: RawEvent[][]): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'regent-bench-big-'))
  try {
    const fillStarted = performance.now()
    const buffer = bufferAt(dir, 'normal')
    let filled = 0
    const groupsPerCommit = 50
    while (filled < BIG_BUFFER_EVENTS && performance.now() - fillStarted < BIG_FILL_TIME_LIMIT_MS) {
      const groups = Array.from(
        { length: groupsPerCommit },
        (_, k) => rows[(filled / 100 + k) % rows.length]!,
      )
      buffer.appendGroups(groups)
      filled += groupsPerCommit * EVENTS_PER_REQUEST
    }
    buffer.close()
    const fillSeconds = (performance.now() - fillStarted) / 1000
    const fileBytes = statSync(join(dir, 'decision-logs.db')).size
    console.log(
      `   1M buffer: filled ${fmt(filled)} events (${mb(fileBytes)} file) in ${fillSeconds.toFixed(1)} s${filled < BIG_BUFFER_EVENTS ? ' (stopped at the time limit)' : ''}`,
    )
    const bodies = rows.slice(0, 50).map((r) => gzipSync(`[${r.map((e) => e.text).join(',')}]`))
    // Each parse worker is one more V8 isolate; a source checkout also runs tsx's loader (a
    // thread of its own) beside the main thread. Measured both ways, and as a build runs.
    const compiled = compiledRelay()
    const runs: Array<[Sync, number, boolean]> = [
      ['full', 1, false],
      ['normal', 1, false],
      ['full', 0, false],
    ]
    if (compiled) runs.push(['full', 1, true], ['normal', 1, true], ['full', 0, true])
    for (const [sync, workers, build] of runs) {
      const openStarted = performance.now()
      const extra = `intake: {parse_workers: ${workers}}`
      const relay = build
        ? await startCompiledRelay(compiled!, dir, sync, extra, ', integrity_check: quick')
        : await startRelay(dir, sync, '-', extra, ', integrity_check: quick').then((r) => ({
            ...r.ready,
            stop: () => stopRelay(r),
          }))
      const openSeconds = (performance.now() - openStarted) / 1000
      try {
        // Some intake on top, so the figure includes a working relay, not an idle one.
        for (const body of bodies) {
          const res = await request(`${relay.url}/v1/logs`, {
            method: 'POST',
            headers: { 'content-encoding': 'gzip' },
            body,
          })
          await res.body.dump()
        }
        const status = await relayStatus(relay.url)
        console.log(
          `   1M buffer, sync ${sync.padEnd(6)}, ${workers} parse worker(s), ${build ? 'bundled JS as built' : 'source checkout, tsx'}: relay RSS ${mb(rssOf(relay.pid))} (${rssParts(relay.pid)}) with ${fmt(status.buffer.events)} events buffered (goal <= 100 MB); start with quick_check took ${openSeconds.toFixed(1)} s`,
        )
        if (build) {
          // Again once V8's memory reducer has run (about 8 s after allocation slows down): what a
          // relay holding the backlog between bursts of intake has.
          await new Promise((r) => setTimeout(r, QUIET_MS))
          console.log(
            `      ${QUIET_MS / 1000} s later, no requests: relay RSS ${mb(rssOf(relay.pid))} (${rssParts(relay.pid)})`,
          )
        }
      } finally {
        await relay.stop()
      }
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

/** Appends `events` of the bench rows to a buffer in `dir` (for forwarding without intake). */
function fill(dir: string, sync: Sync, rows: RawEvent[][], events: number): void {
  const buffer = bufferAt(dir, sync)
  for (let i = 0; i < events / EVENTS_PER_REQUEST; i += 50) {
    buffer.appendGroups(rows.slice(i % rows.length, (i % rows.length) + 50))
  }
  buffer.close()
}

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b)
  const mid = sorted.length >> 1
  return sorted.length % 2 === 1 ? sorted[mid]! : (sorted[mid - 1]! + sorted[mid]!) / 2
}

/**
 * Intake against raw inserts, in alternating rounds; prints best and median of each and of the
 * per-round ratio (intake / the faster raw of the same round), the fairest figure on a machine
 * others load unevenly.
 */
async function intakeFigures(
  dir: string,
  sync: Sync,
  bodies: Buffer[],
  rows: RawEvent[][],
  workers = 1,
): Promise<number> {
  const raw100: Rate[] = []
  const raw1000: Rate[] = []
  const intake: Rate[] = []
  const ratios: number[] = []
  const relay = await startRelay(dir, sync, '-', `intake: {parse_workers: ${workers}}`)
  try {
    for (let round = 0; round < ROUNDS; round++) {
      raw100.push(rawInserts(rows, sync, EVENTS_PER_REQUEST))
      raw1000.push(rawInserts(rows, sync, 1000))
      intake.push(await measureIntake(relay.ready.url, relay.ready.pid, bodies))
      ratios.push(intake.at(-1)!.perSecond / Math.max(raw100.at(-1)!.perSecond, raw1000.at(-1)!.perSecond))
    }
  } finally {
    await stopRelay(relay)
  }
  const rates = (values: Rate[]) => values.map((v) => v.perSecond)
  const both = (values: number[]) => `${fmt(Math.max(...values))} / ${fmt(median(values))}`
  const cpu = (values: Rate[]) => `${Math.min(...values.map((v) => v.cpuMicros)).toFixed(1)} µs`
  const pct = (r: number) => `${(r * 100).toFixed(0)}%`
  console.log(
    `   sync ${sync.padEnd(6)}, ${workers} parse worker(s) (best / median of ${ROUNDS}): intake ${both(rates(intake))} events/s; raw inserts ${both(rates(raw100))}/s (100 per commit), ${both(rates(raw1000))}/s (1000 per commit); intake / faster raw of its round ${pct(Math.max(...ratios))} / ${pct(median(ratios))} (goals >= 100,000/s and >= 50%)`,
  )
  console.log(
    `   sync ${sync.padEnd(6)}, ${workers} parse worker(s): CPU per event (least of ${ROUNDS}): relay ${cpu(intake)} (all its threads; the agents not counted), raw ${cpu(raw100)} (100 per commit), ${cpu(raw1000)} (1000 per commit)`,
  )
  return median(rates(intake))
}

/** Prints the figures (see the module comment). */
export async function run(): Promise<void> {
  // Figures are only comparable within one run: say how busy the machine was.
  const load = () => loadavg()[0]!.toFixed(1)
  console.log(`   machine: ${cpus().length} cores, load average ${load()} at start`)
  const { bodies, rows } = requestBodies()
  const eventBytes = rows[0]![0]!.text.length
  console.log(
    `   ${AGENTS} agents, ${EVENTS_PER_REQUEST} events of ~${eventBytes} bytes per gzip request (~${fmt(bodies[0]!.length)} bytes), best of ${ROUNDS} rounds of up to ${fmt(INTAKE_EVENTS)} events or ${INTAKE_TIME_LIMIT_MS / 1000} s`,
  )
  const sink = await startSink()
  try {
    for (const sync of SYNCS) {
      const dir = mkdtempSync(join(tmpdir(), 'regent-bench-intake-'))
      let intakeMedian: number | undefined
      try {
        if (PARTS.has('intake')) {
          // The first setting fills `dir` (forwarded below); the others get fresh folders.
          for (const [k, workers] of WORKER_COUNTS.entries()) {
            const own = k === 0 ? dir : mkdtempSync(join(tmpdir(), 'regent-bench-intake-'))
            try {
              const rate = await intakeFigures(own, sync, bodies, rows, workers)
              if (k === 0) intakeMedian = rate
            } finally {
              if (own !== dir) rmSync(own, { recursive: true, force: true })
            }
          }
        } else fill(dir, sync, rows, 100_000)
        if (PARTS.has('forward')) {
          const forward32k = await measureForwarding(dir, sync, sink.url, 32 * 1024)
          console.log(
            `   sync ${sync.padEnd(6)}: forwarding ${fmt(forward32k)} events/s in 32 KiB gzip batches${intakeMedian ? `, ${(forward32k / intakeMedian).toFixed(2)}× the median intake above (goal >= 1.2×)` : ''}`,
          )
        }
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }
    // Larger batches, as for the regent service: refill once and drain with 1 MiB batches.
    for (const sync of PARTS.has('forward') ? SYNCS : []) {
      const dir = mkdtempSync(join(tmpdir(), 'regent-bench-forward-'))
      try {
        fill(dir, sync, rows, 200_000)
        const forward1m = await measureForwarding(dir, sync, sink.url, 1024 * 1024)
        console.log(`   sync ${sync.padEnd(6)}: forwarding ${fmt(forward1m)} events/s in 1 MiB gzip batches`)
      } finally {
        rmSync(dir, { recursive: true, force: true })
      }
    }
  } finally {
    await sink.close()
  }
  if (PARTS.has('rss')) await measureBigBuffer(rows)
  console.log(`   load average ${load()} at the end`)
}
