/**
 * Decision search over a large log (issue 17, item 8): a rare term answered from the full-text
 * index (SQLite FTS5 trigram, PostgreSQL pg_trgm) beside the unindexed scan of the same query in
 * the same run, a frequent term, and a term too short for the index (a budgeted scan that answers
 * a partial page). The table is built with bulk inserts straight into the database (1M rows by
 * default, REGENT_BENCH_SEARCH_ROWS to change; fewer when the build hits its time budget, and the
 * count is printed). PostgreSQL runs when REGENT_TEST_PG_URL is set.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import pg from 'pg'
import { type DecisionQuery, ServiceStore } from '../../store/service/index.js'
import { BACKENDS } from '../store/backends.js'

const ROWS = Number(process.env.REGENT_BENCH_SEARCH_ROWS ?? 1_000_000)
const BUILD_BUDGET_MS = 150_000
const BUDGET_MS = 1000
const BASE_US = 1_700_000_000_000_000
// Rows holding the rare term: spread over the log, none among the newest.
const RARE_EVERY = 200_000
const RARE = 'needle-4711'

function raw(i: number): string {
  const rare = i % RARE_EVERY === 12_345 ? `,"note":"${RARE}"` : ''
  return `{"decision_id":"bench-${i}","labels":{"id":"agent-${i % 7}","version":"1.0.0"},"path":"app/authz/allow","input":{"user":"u${i % 1000}","action":"read","resource":"doc-${i % 5000}"},"result":${i % 3 !== 0}${rare}}`
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
  return `p50 ${quantile(times, 0.5).toFixed(1)} ms, p99 ${quantile(times, 0.99).toFixed(1)} ms (${times.length} runs)`
}

const text = (value: string): DecisionQuery => ({
  order: 'DESC',
  limit: 101,
  terms: [{ kind: 'text', value }],
})

async function figures(store: ServiceStore, unindexed: () => Promise<number>): Promise<void> {
  const rare = await store.decisions.search(text(RARE))
  console.log(`     (rare term found in ${rare.length} decisions)`)
  console.log(
    `     ${'rare term, index'.padEnd(28)} ${await measure(() => store.decisions.searchWithin(text(RARE), BUDGET_MS), 30, 5000)}`,
  )
  let found = -1
  console.log(
    `     ${'rare term, unindexed scan'.padEnd(28)} ${await measure(
      async () => {
        found = await unindexed()
      },
      3,
      1,
    )} (baseline: LIKE over every row; found ${found})`,
  )
  console.log(
    `     ${'frequent term'.padEnd(28)} ${await measure(() => store.decisions.searchWithin(text('agent-3'), BUDGET_MS), 30, 5000)}`,
  )
  let partial = false
  console.log(
    `     ${'2-character term (scan)'.padEnd(28)} ${await measure(
      async () => {
        partial = (await store.decisions.searchWithin(text('zq'), BUDGET_MS)).stoppedAt !== undefined
      },
      3,
      1,
    )} (budget ${BUDGET_MS} ms; partial page: ${partial})`,
  )
}

async function sqlite(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'regent-search-bench-'))
  const file = join(dir, 'service.db')
  try {
    await (await ServiceStore.open({ url: file })).close() // the schema, migrated
    const db = new Database(file)
    db.pragma('journal_mode = WAL')
    db.pragma('synchronous = OFF')
    const insert = db.prepare(
      `insert into decisions (decision_id, system_id, path, result_kind, ts_us, received_us, raw)
       values (?, 'sys', 'app/authz/allow', 'ALLOWED', ?, ?, ?)`,
    )
    const started = performance.now()
    let built = 0
    const bulk = db.transaction((from: number, to: number) => {
      for (let i = from; i < to; i++) insert.run(`bench-${i}`, BASE_US + i * 1000, BASE_US, raw(i))
    })
    while (built < ROWS && performance.now() - started < BUILD_BUDGET_MS) {
      const to = Math.min(built + 50_000, ROWS)
      bulk(built, to)
      built = to
    }
    const seconds = (performance.now() - started) / 1000
    const store = await ServiceStore.open({ url: file })
    // The text index is filled as the service's background indexer does, in batches.
    const indexStarted = performance.now()
    while ((await store.decisions.indexText(50_000)) > 0) {}
    const indexSeconds = (performance.now() - indexStarted) / 1000
    console.log(
      `   sqlite: ${built} decisions inserted in ${seconds.toFixed(1)} s (${Math.round(built / seconds)} rows/s), ` +
        `FTS5 trigram index built in ${indexSeconds.toFixed(1)} s (${Math.round(built / indexSeconds)} rows/s)` +
        (built < ROWS ? ` (build budget hit before ${ROWS})` : ''),
    )
    const scan = db.prepare(
      `select * from decisions where raw like ? escape '\\' order by ts_us desc, seq desc limit 101`,
    )
    try {
      await figures(store, async () => scan.all(`%${RARE}%`).length)
    } finally {
      await store.close()
      db.close()
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
    const started = performance.now()
    let built = 0
    while (built < ROWS && performance.now() - started < BUILD_BUDGET_MS) {
      const to = Math.min(built + 50_000, ROWS)
      // The same event text as SQLite's, generated by the server.
      await client.query(
        `insert into decisions (decision_id, system_id, path, result_kind, ts_us, received_us, raw)
         select 'bench-' || i, 'sys', 'app/authz/allow', 'ALLOWED', $1::bigint + i * 1000, $1::bigint,
           '{"decision_id":"bench-' || i || '","labels":{"id":"agent-' || (i % 7) || '","version":"1.0.0"},"path":"app/authz/allow","input":{"user":"u' || (i % 1000) || '","action":"read","resource":"doc-' || (i % 5000) || '"},"result":' || (i % 3 <> 0)::text ||
           case when i % ${RARE_EVERY} = 12345 then ',"note":"${RARE}"' else '' end || '}'
         from generate_series($2::int, $3::int - 1) as i`,
        [BASE_US, built, to],
      )
      built = to
    }
    // The background indexer's work, in one statement (migration 0012: the index is on the copy).
    await client.query('insert into decision_texts (seq, raw) select seq, raw from decisions')
    await client.query(
      'update decision_texts_progress set indexed_through = (select max(seq) from decisions)',
    )
    await client.query('analyze decisions')
    await client.query('analyze decision_texts')
    const seconds = (performance.now() - started) / 1000
    console.log(
      `   postgres: ${built} decisions built in ${seconds.toFixed(1)} s with the pg_trgm GIN index (on decision_texts)` +
        (built < ROWS ? ` (build budget hit before ${ROWS})` : ''),
    )
    await figures(store, async () => {
      // The unindexed plan: what the search did before the index (ordered scan, filter each row).
      await client.query('begin')
      try {
        await client.query('set local enable_bitmapscan = off')
        const r = await client.query(
          `select * from decisions where raw ilike $1 order by ts_us desc, seq desc limit 101`,
          [`%${RARE}%`],
        )
        return r.rowCount ?? 0
      } finally {
        await client.query('commit')
      }
    })
  } finally {
    await client.end()
    await store.close()
    await database.cleanup()
  }
}

/** Runs the decision-search benchmarks. */
export async function run(): Promise<void> {
  // REGENT_BENCH_BACKENDS=postgres (or sqlite) runs only those backends (both by default).
  const only = process.env.REGENT_BENCH_BACKENDS?.split(',')
  if (!only || only.includes('sqlite')) await sqlite()
  if (!only || only.includes('postgres')) await postgres()
}
