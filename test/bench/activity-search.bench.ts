/**
 * Activity search over a large log (issue 18): p50/p99 of the searches v1 and v2 make (newest
 * page, class filter, request id, a one-hour window, a deep v2 cursor page, a rare outcome, a
 * text term) beside a baseline in the same run: the newest page read with a raw prepared
 * statement (SQLite) or plain SQL (PostgreSQL), no query builder. The log is seeded through the
 * store in bulk (`appendMany`): 1M records by default, REGENT_BENCH_ACTIVITY_ROWS to change (fewer
 * when the build hits its time budget; the count is printed). PostgreSQL runs when
 * REGENT_TEST_PG_URL is set. Run alone: `npm run bench -- activity-search`.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { type ActivityQuery, type NewActivity, ServiceStore } from '../../store/service/index.js'
import { BACKENDS } from '../store/backends.js'

const ROWS = Number(process.env.REGENT_BENCH_ACTIVITY_ROWS ?? 1_000_000)
const BUILD_BUDGET_MS = 420_000
const CHUNK = 20_000
const BASE_MS = Date.parse('2026-01-01T00:00:00Z')
// One request every 50 ms: 1M records span about 14 hours.
const STEP_MS = 50
const PATHS = [
  '/v1/systems',
  '/v1/systems/app-3',
  '/v1/policies/systems/app-3/rules',
  '/v1/data/users',
  '/v1/tokens',
]

function entry(i: number): NewActivity {
  const write = i % 5 === 0
  const denied = i % 100 === 7
  const method = write ? 'PUT' : 'GET'
  const path = PATHS[i % PATHS.length]!
  const status = denied ? 403 : 200
  const at = new Date(BASE_MS + i * STEP_MS)
  const activityClass = write || denied ? 'audit' : 'activity'
  const user = `user-${i % 50}`
  const record = {
    request: {
      id: `req-${i}`,
      host: 'regent.example.com',
      method,
      path,
      timestamp: at.toISOString(),
      class: activityClass,
      requested_by: user,
      requested_through: 'token',
      ...(write ? { request_body: `{"description":"change ${i}","labels":{"team":"t${i % 9}"}}` } : {}),
    },
    response: { timestamp: new Date(at.getTime() + 3).toISOString(), status_code: status },
    duration: 3_000_000,
    decision: { input: { method, path, user }, output: { allow: !denied } },
  }
  return {
    requestId: `req-${i}`,
    tsUs: at.getTime() * 1000,
    activityClass,
    method,
    path,
    requestedBy: user,
    statusCode: status,
    outcome: denied ? 'denied' : 'allowed',
    record: JSON.stringify(record),
  }
}

function quantile(sorted: number[], q: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? Number.NaN
}

/** p50/p99 of `run` over at most `count` runs or `maxMs`. */
async function measure(run: () => Promise<unknown> | unknown, count: number, maxMs: number): Promise<string> {
  const times: number[] = []
  const until = performance.now() + maxMs
  for (let i = 0; i < count && (i === 0 || performance.now() < until); i++) {
    const t0 = performance.now()
    await run()
    times.push(performance.now() - t0)
  }
  times.sort((a, b) => a - b)
  return `p50 ${quantile(times, 0.5).toFixed(2)} ms, p99 ${quantile(times, 0.99).toFixed(2)} ms (${times.length} runs)`
}

async function seed(store: ServiceStore, name: string): Promise<number> {
  const started = performance.now()
  let built = 0
  while (built < ROWS && performance.now() - started < BUILD_BUDGET_MS) {
    const to = Math.min(built + CHUNK, ROWS)
    const chunk: NewActivity[] = []
    for (let i = built; i < to; i++) chunk.push(entry(i))
    await store.activity.appendMany(chunk)
    built = to
  }
  const seconds = (performance.now() - started) / 1000
  console.log(
    `   ${name}: ${built} records appended through the store in ${seconds.toFixed(1)} s (${Math.round(built / seconds)} rows/s)` +
      (built < ROWS ? ` (build budget hit before ${ROWS})` : ''),
  )
  return built
}

async function figures(
  store: ServiceStore,
  built: number,
  baseline: () => Promise<unknown> | unknown,
): Promise<void> {
  const newest: ActivityQuery = { order: 'DESC', limit: 256 }
  const midUs = (BASE_MS + Math.floor(built / 2) * STEP_MS) * 1000
  const deep = (await store.activity.search({ order: 'DESC', limit: 1, endUs: midUs }))[0]!
  const cases: Array<[string, () => Promise<unknown>]> = [
    ['v1 newest 256 (default)', () => store.activity.search(newest)],
    ['v1 class_type=audit, 256', () => store.activity.search({ ...newest, activityClass: 'audit' })],
    ['v1 request_id', () => store.activity.search({ ...newest, requestId: `req-${Math.floor(built / 3)}` })],
    [
      'v1 1-hour window, forward',
      () => store.activity.search({ order: 'ASC', limit: 256, startUs: midUs, endUs: midUs + 3_600_000_000 }),
    ],
    ['v2 page at a mid cursor, 100', () => store.activity.search({ order: 'DESC', limit: 101, after: deep })],
    [
      'v2 outcome=denied (1%), 100',
      () => store.activity.search({ order: 'DESC', limit: 101, outcome: 'denied' }),
    ],
    ['v2 get one by request id', () => store.activity.get(`req-${Math.floor(built / 5)}`)],
    [
      'v2 query=user-7 (2% of rows)',
      () => store.activity.search({ order: 'DESC', limit: 101, terms: ['user-7'] }),
    ],
  ]
  console.log(`     ${'baseline: newest 256, raw SQL'.padEnd(32)} ${await measure(baseline, 200, 5000)}`)
  for (const [name, run] of cases) console.log(`     ${name.padEnd(32)} ${await measure(run, 200, 5000)}`)
  let partial = false
  console.log(
    `     ${'v2 query=absent, 1 s budget'.padEnd(32)} ${await measure(
      async () => {
        const absent = { order: 'DESC' as const, limit: 101, terms: ['no-such-text'] }
        partial = (await store.activity.searchWithin(absent, 1000)).stoppedAt !== undefined
      },
      3,
      1,
    )} (partial page: ${partial})`,
  )
  console.log(
    `     ${'v2 query=absent, no budget'.padEnd(32)} ${await measure(
      () => store.activity.search({ order: 'DESC', limit: 101, terms: ['no-such-text'] }),
      1,
      1,
    )} (baseline: the whole log scanned)`,
  )
}

async function sqlite(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'regent-activity-bench-'))
  const file = join(dir, 'service.db')
  try {
    const store = await ServiceStore.open({ url: file })
    const db = new Database(file, { readonly: true })
    try {
      const built = await seed(store, 'sqlite')
      const newest = db.prepare('select * from activity order by ts_us desc, seq desc limit 256')
      await figures(store, built, () => newest.all())
    } finally {
      db.close()
      await store.close()
    }
  } finally {
    rmSync(dir, { recursive: true, force: true })
  }
}

async function postgres(): Promise<void> {
  const backend = BACKENDS.find((b) => b.name === 'postgres')!
  if (!backend.available) {
    console.log('   postgres: skipped (REGENT_TEST_PG_URL is not set)')
    return
  }
  const database = await backend.create()
  const store = await ServiceStore.open({ url: database.url, schema: database.schema, poolSize: 2 })
  const client = new pg.Client({
    connectionString: database.url,
    options: `-c search_path="${database.schema}"`,
  })
  await client.connect()
  try {
    const built = await seed(store, 'postgres')
    await client.query('analyze activity')
    await figures(store, built, () =>
      client.query('select * from activity order by ts_us desc, seq desc limit 256'),
    )
  } finally {
    await client.end()
    await store.close()
    await database.cleanup()
  }
}

/** Runs the activity-search benchmarks. */
export async function run(): Promise<void> {
  await sqlite()
  await postgres()
}
