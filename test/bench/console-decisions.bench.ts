/**
 * Console load time to interactive of the Decisions view over 1M stored decisions (issue 23,
 * Figures), in Chromium against an in-process service on SQLite: from navigation until the
 * first page of results and the chart's totals are on screen, for the default range (last hour),
 * the last 24 hours (every stored decision in range) and all time. Baselines in the same run: the
 * Systems view (one small API call) and the two API calls the view waits for, timed from Node.
 * The log is filled with direct inserts into the service's SQLite file (1M rows spread over the
 * last 24 h; REGENT_BENCH_CONSOLE_ROWS to change; fewer when the build budget runs out, and the
 * count is printed), then the text index is filled as the background indexer would.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, statSync } from 'node:fs'
import { loadavg, tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import Database from 'better-sqlite3'
import type { Page } from 'playwright-core'
import { parseConfig } from '../../core/config.js'
import { createLogger } from '../../core/log.js'
import { serviceSectionSchema, startService } from '../../service/index.js'
import { ServiceStore } from '../../store/service/index.js'
import { chromiumProblem, launchChromium } from '../console/support/browser.js'
import { builtConsole } from '../console/support/console-build.js'

const ROWS = Number(process.env.REGENT_BENCH_CONSOLE_ROWS ?? 1_000_000)
const BUILD_BUDGET_MS = 120_000
const INDEX_BUDGET_MS = 90_000
const RUNS = 5
const ADMIN = 'bench-admin-token-0123456789'
const KINDS = ['ALLOWED', 'DENIED', 'ALLOWED', 'ERROR']

function raw(i: number, tsUs: number): string {
  const kind = KINDS[i % KINDS.length]!
  const result = kind === 'ERROR' ? '' : `,"result":${kind === 'ALLOWED'}`
  const error = kind === 'ERROR' ? ',"error":{"code":"eval_error"}' : ''
  return `{"decision_id":"bench-${i}","labels":{"id":"agent-${i % 50}","version":"1.0.0"},"path":"app/authz/allow","input":{"user":"u${i % 1000}","action":"read"}${result}${error},"timestamp":"${new Date(Math.floor(tsUs / 1000)).toISOString()}"}`
}

function fill(file: string, startUs: number, spanUs: number): { rows: number; seconds: number } {
  const db = new Database(file)
  db.pragma('journal_mode = WAL')
  db.pragma('synchronous = OFF')
  const insert = db.prepare(
    `insert into decisions (decision_id, system_id, path, result_kind, ts_us, received_us, raw)
     values (?, 'sys', 'app/authz/allow', ?, ?, ?, ?)`,
  )
  const bulk = db.transaction((from: number, to: number) => {
    for (let i = from; i < to; i++) {
      const ts = startUs + Math.floor((i * spanUs) / ROWS)
      insert.run(`bench-${i}`, KINDS[i % KINDS.length], ts, ts, raw(i, ts))
    }
  })
  const started = performance.now()
  let rows = 0
  while (rows < ROWS && performance.now() - started < BUILD_BUDGET_MS) {
    const to = Math.min(rows + 50_000, ROWS)
    bulk(rows, to)
    rows = to
  }
  db.close()
  return { rows, seconds: (performance.now() - started) / 1000 }
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN
}

function summary(times: number[]): string {
  const sorted = [...times].sort((a, b) => a - b)
  return `p50 ${quantile(sorted, 0.5).toFixed(0)} ms, max ${sorted.at(-1)!.toFixed(0)} ms (${times.length} loads)`
}

/** Milliseconds from navigation until `ready` resolves, over RUNS fresh loads of `url`. */
async function loads(page: Page, url: string, ready: (page: Page) => Promise<unknown>): Promise<number[]> {
  const times: number[] = []
  for (let i = 0; i < RUNS; i++) {
    await page.goto('about:blank')
    const t0 = performance.now()
    await page.goto(url)
    await ready(page)
    times.push(performance.now() - t0)
  }
  return times
}

async function apiTimes(url: string): Promise<number[]> {
  const times: number[] = []
  for (let i = 0; i < RUNS; i++) {
    const t0 = performance.now()
    const res = await fetch(url, { headers: { Authorization: `Bearer ${ADMIN}` } })
    await res.text()
    if (!res.ok) throw new Error(`${url}: ${res.status}`)
    times.push(performance.now() - t0)
  }
  return times
}

function assetSizes(dir: string): string {
  let raw = 0
  let gz = 0
  const walk = (d: string) => {
    for (const name of readdirSync(d)) {
      const path = join(d, name)
      if (statSync(path).isDirectory()) walk(path)
      else if (/\.(js|css|html)$/.test(name)) {
        const bytes = readFileSync(path)
        raw += bytes.length
        gz += gzipSync(bytes).length
      }
    }
  }
  walk(dir)
  return `${(raw / 1024).toFixed(0)} KiB (${(gz / 1024).toFixed(0)} KiB gzip)`
}

export async function run(): Promise<void> {
  const problem = chromiumProblem()
  if (problem) {
    console.log(`   skipped: ${problem}`)
    return
  }
  const consoleDir = await builtConsole()
  const dataDir = mkdtempSync(join(tmpdir(), 'regent-console-bench-'))
  const file = join(dataDir, 'service.db')
  try {
    await (await ServiceStore.open({ url: file })).close() // the schema, migrated
    const nowUs = Date.now() * 1000
    const { rows, seconds } = fill(file, nowUs - 86_400_000_000, 86_400_000_000 - 60_000_000)
    const store = await ServiceStore.open({ url: file })
    const indexStarted = performance.now()
    while (
      performance.now() - indexStarted < INDEX_BUDGET_MS &&
      (await store.decisions.indexText(50_000)) > 0
    ) {}
    const indexDone = (await store.decisions.indexText(1)) === 0
    await store.close()
    console.log(
      `   ${rows} decisions over the last 24 h inserted in ${seconds.toFixed(1)} s` +
        (rows < ROWS ? ` (build budget hit before ${ROWS})` : '') +
        `; text index ${indexDone ? 'complete' : 'not complete (budget): the background indexer runs during the loads'}`,
    )

    const service = await startService({
      config: parseConfig(JSON.stringify({ console: { dir: consoleDir } }), serviceSectionSchema),
      logger: createLogger({ level: 'silent' }),
      addr: '127.0.0.1:0',
      dataDir,
      adminToken: ADMIN,
      graceMs: 200,
    })
    const browser = await launchChromium()
    try {
      const created = await fetch(`${service.url}/v1/systems/sys`, {
        method: 'PUT',
        headers: {
          Authorization: `Bearer ${ADMIN}`,
          'Content-Type': 'application/json',
          'If-None-Match': '*',
        },
        body: JSON.stringify({ name: 'sys', type: 'custom' }),
      })
      if (!created.ok) throw new Error(`creating sys: ${created.status}`)
      const page = await browser.newPage({ viewport: { width: 1280, height: 720 } })
      await page.goto(`${service.url}/console/`)
      await page.getByLabel('API token or identity-provider token').fill(ADMIN)
      await page.getByRole('button', { name: 'Sign in' }).click()
      await page.getByRole('navigation', { name: 'Views' }).waitFor()

      const base = `${service.url}/console/`
      const decisionsReady = async (p: Page) => {
        await p.locator('table.decisions tbody tr').first().waitFor({ timeout: 60_000 })
        await p.locator('.totals dd[data-kind="TOTAL"]').waitFor({ timeout: 60_000 })
      }
      const systems = await loads(page, `${base}#/systems`, (p) =>
        p.getByRole('cell', { name: 'sys', exact: true }).first().waitFor(),
      )
      const hour = await loads(page, `${base}#/decisions`, decisionsReady)
      const day = await loads(page, `${base}#/decisions?range=24h`, decisionsReady)
      const all = await loads(page, `${base}#/decisions?range=all`, decisionsReady)
      const total24 = await page.locator('.totals dd[data-kind="TOTAL"]').textContent()

      const api = `${service.url}/v1/decisions`
      const since = (ms: number) => new Date(Date.now() - ms).toISOString()
      const firstPage = await apiTimes(
        `${api}?limit=50&input_max_size=0&result_max_size=512&start_time=${since(3_600_000)}`,
      )
      const counts1h = await apiTimes(`${api}/counts?start_time=${since(3_600_000)}`)
      const counts24h = await apiTimes(`${api}/counts?start_time=${since(86_400_000)}`)

      console.log(
        `   load average ${loadavg()
          .map((n) => n.toFixed(2))
          .join(' ')}; ${RUNS} loads each, Chromium headless`,
      )
      console.log(`     ${'baseline: Systems view'.padEnd(40)} ${summary(systems)}`)
      console.log(`     ${'Decisions view, last hour (default)'.padEnd(40)} ${summary(hour)}`)
      console.log(`     ${'Decisions view, last 24 h (all rows)'.padEnd(40)} ${summary(day)}`)
      console.log(
        `     ${'Decisions view, all time (30-day chart)'.padEnd(40)} ${summary(all)} (chart total ${total24})`,
      )
      console.log(`     ${'API: first page, last hour'.padEnd(40)} ${summary(firstPage)}`)
      console.log(`     ${'API: counts, last hour'.padEnd(40)} ${summary(counts1h)}`)
      console.log(`     ${'API: counts, last 24 h'.padEnd(40)} ${summary(counts24h)}`)
      console.log(`     shipped console assets: ${assetSizes(consoleDir)}`)
    } finally {
      await browser.close()
      await service.stop()
    }
  } finally {
    rmSync(dataDir, { recursive: true, force: true })
  }
}
