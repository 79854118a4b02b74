/**
 * 200 `http` datasources polling on one service (SQLite, the scheduler's defaults: a tick every
 * second, 4 runs at once), every 10 s, against a small JSON source on 127.0.0.1 in this process:
 * runs done against runs due, CPU seconds per minute of the whole process, CPU per run, and the
 * event loop's delay (p50/p99/max) while they poll. Rows: the same service idle (no datasources:
 * the baseline of ticking and serving nothing), 200 datasources whose data does not change (no
 * bundle rebuild), and 200 whose data changes on every fetch (each run rebuilds its system's
 * bundle; 20 systems of 10). Bounded: REGENT_BENCH_SECONDS (default 60) per polling row, 20 s idle.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer } from 'node:http'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { monitorEventLoopDelay } from 'node:perf_hooks'
import { parseConfig } from '../../core/config.js'
import { createLogger } from '../../core/log.js'
import { type RunningService, serviceSectionSchema, startService } from '../../service/index.js'
import { BACKENDS } from '../store/backends.js'

const ADMIN = 'bench-admin-token-0123456789'
const SYSTEMS = 20
const PER_SYSTEM = 10
const INTERVAL_S = 10
const ROW_SECONDS = Number(process.env.REGENT_BENCH_SECONDS ?? 60)
const IDLE_SECONDS = 20

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

/** Measures `seconds` of whatever the process does now; prints one line. */
async function measure(label: string, seconds: number, hits: () => number, due: number): Promise<void> {
  const delay = monitorEventLoopDelay({ resolution: 10 })
  delay.enable()
  const cpuBefore = process.cpuUsage()
  const hitsBefore = hits()
  const started = performance.now()
  await new Promise((resolve) => setTimeout(resolve, seconds * 1000))
  const wallS = (performance.now() - started) / 1000
  const cpu = process.cpuUsage(cpuBefore)
  delay.disable()
  const cpuS = (cpu.user + cpu.system) / 1e6
  const runs = hits() - hitsBefore
  const ms = (ns: number) => (ns / 1e6).toFixed(1)
  console.log(
    `   ${label.padEnd(40)} ${String(runs).padStart(5)} runs (${Math.round(due * wallS)} due)  CPU ${((cpuS / wallS) * 60).toFixed(1)} s/min` +
      `${runs > 0 ? `  ${((cpuS * 1000) / runs).toFixed(1)} ms/run` : ''}  event loop delay p50 ${ms(delay.percentile(50))} p99 ${ms(delay.percentile(99))} max ${ms(delay.max)} ms`,
  )
}

/** Prints the figures. */
export async function run(): Promise<void> {
  const logger = createLogger({ level: 'silent' })
  let hits = 0
  let changing = false
  const source = createServer((req, res) => {
    hits++
    // Unchanging rows answer the same document; changing ones a new counter every time.
    const body = JSON.stringify({ path: req.url, users: ['alice', 'bob', 'carol'], n: changing ? hits : 0 })
    res.writeHead(200, { 'content-type': 'application/json' })
    res.end(body)
  })
  await new Promise<void>((resolve) => source.listen(0, '127.0.0.1', resolve))
  const sourceUrl = `http://127.0.0.1:${(source.address() as { port: number }).port}`

  const sqlite = BACKENDS.find((b) => b.name === 'sqlite')!
  const database = await sqlite.create()
  const dataDir = mkdtempSync(join(tmpdir(), 'regent-ds-scheduler-bench-'))
  let service: RunningService | undefined
  try {
    service = await startService({
      config: parseConfig('{}', serviceSectionSchema),
      logger,
      addr: '127.0.0.1:0',
      dataDir,
      adminToken: ADMIN,
      databaseSchema: database.schema,
      graceMs: 500,
    })
    const base = service.url
    console.log(`load: ${process.platform} ${process.arch}, load average ${loadavg()[0]?.toFixed(2)}`)
    console.log(
      `${SYSTEMS * PER_SYSTEM} http datasources every ${INTERVAL_S} s on one service (SQLite, scheduler defaults):`,
    )
    await measure('idle service, no datasources (baseline)', IDLE_SECONDS, () => hits, 0)
    for (let s = 0; s < SYSTEMS; s++) {
      const system = await api(base, 'POST', '/v1/systems', { name: `bench-${s}`, type: 'custom' })
      for (let d = 0; d < PER_SYSTEM; d++) {
        await api(base, 'PUT', `/v1/datasources/systems/${system.result.id}/source-${d}`, {
          category: 'http',
          url: `${sourceUrl}/s${s}/d${d}`,
          polling_interval: `${INTERVAL_S}s`,
        })
      }
    }
    const due = (SYSTEMS * PER_SYSTEM) / INTERVAL_S
    // One interval to get past the first runs of the datasources just created.
    await new Promise((resolve) => setTimeout(resolve, INTERVAL_S * 1000))
    await measure('200 datasources, data unchanged', ROW_SECONDS, () => hits, due)
    changing = true
    await new Promise((resolve) => setTimeout(resolve, INTERVAL_S * 1000))
    await measure('200 datasources, data changing (rebuilds)', ROW_SECONDS, () => hits, due)
  } finally {
    await service?.stop()
    await database.cleanup()
    rmSync(dataDir, { recursive: true, force: true })
    await new Promise((resolve) => source.close(resolve))
  }
}
