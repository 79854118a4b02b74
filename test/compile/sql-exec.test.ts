/**
 * Proof that the SQL is right: generated filter policies (comparisons either way round, `in`, string
 * prefixes/suffixes/infixes with LIKE wildcards in them, `not`, and/or nesting, nulls, two tables) are
 * partially evaluated by the real engine, translated, and their WHERE clauses run on real SQLite,
 * PostgreSQL and MariaDB over generated rows. The reference is the policy itself: `data.filters.include`
 * evaluated by regent's evaluator with each row pair as input. For every policy and database:
 * - the rows SQL returns are exactly the rows the UCAST interpreter accepts (SQL's three-valued logic);
 * - they are a subset of the rows the policy allows (never fail-open), and of the rows the residual
 *   accepts under Rego's semantics;
 * - on rows without NULLs they are exactly the rows the policy allows.
 * The conformance `db_effect` cases run too (through the real endpoint code), checking the rows their
 * sources list.
 */
import { readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { EngineBackend } from '../../compile/backend.js'
import { CompileService } from '../../compile/compile.js'
import { checkFragments } from '../../compile/fragments/check.js'
import { ConstraintSet } from '../../compile/fragments/constraints.js'
import { renderSql } from '../../compile/sql/index.js'
import type { SqlDialect } from '../../compile/types.js'
import { queriesToUcast } from '../../compile/ucast.js'
import { compile, type Module, parseModule, partialEvaluate } from '../../core/rego/index.js'
import type { Body } from '../../core/rego/syntax/ast.js'
import { fromJS } from '../../core/rego/values/index.js'
import {
  type Cell,
  openMysql,
  openPostgres,
  openSqlite,
  type TableSpec,
  type TestDatabase,
} from './sql-databases.js'
import { evalResidual, evalUcast, type Row } from './ucast-interpreter.js'

const PG_URL = process.env.REGENT_TEST_PG_URL
const MYSQL_URL = process.env.REGENT_TEST_MYSQL_URL
const POLICIES = 160
const CASES_DIR = path.resolve(import.meta.dirname, '../../../shared/conformance/compile')

// Deterministic pseudo-random numbers, so a failure reproduces.
function mulberry32(seed: number): () => number {
  let a = seed
  return () => {
    a = (a + 0x6d2b79f5) | 0
    let t = Math.imul(a ^ (a >>> 15), 1 | a)
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296
  }
}
const rand = mulberry32(20250917)
const pick = <T>(xs: readonly T[]): T => xs[Math.floor(rand() * xs.length)]!

const STRINGS = [
  'apple',
  'Apple',
  'pineapple',
  'app_le',
  '100%',
  'a\\b',
  "it's",
  'say "hi"',
  'ünïcode',
  'x[y]',
  '',
  'a%b',
  'green',
  'Green',
  'yellow',
]
const DECIMALS = ['-3', '0', '1.5', '10', '11', '20']
const INTS = [0, 1, 2, 5, 10]

type ColType = 'int' | 'text' | 'decimal' | 'bool'
const FRUITS: TableSpec['columns'] = [
  { name: 'id', type: 'int', nullable: false },
  { name: 'name', type: 'text', nullable: false },
  { name: 'colour', type: 'text', nullable: true },
  { name: 'price', type: 'decimal', nullable: true },
  { name: 'ripe', type: 'bool', nullable: true },
]
const BASKETS: TableSpec['columns'] = [
  { name: 'id', type: 'int', nullable: false },
  { name: 'colour', type: 'text', nullable: true },
  { name: 'owner', type: 'text', nullable: true },
]

function cell(type: ColType, nullable: boolean): Cell {
  if (nullable && rand() < 0.2) return null
  if (type === 'text') return pick(STRINGS)
  if (type === 'decimal') return Number(pick(DECIMALS))
  if (type === 'bool') return rand() < 0.5
  return pick(INTS)
}

function rows(columns: TableSpec['columns'], count: number): Array<Record<string, Cell>> {
  return Array.from({ length: count }, (_, i) =>
    Object.fromEntries(columns.map((c) => [c.name, c.name === 'id' ? i + 1 : cell(c.type, c.nullable)])),
  )
}

const TABLES: TableSpec[] = [
  { name: 'fruits', columns: FRUITS, rows: rows(FRUITS, 9) },
  { name: 'baskets', columns: BASKETS, rows: rows(BASKETS, 4) },
]
const COLUMNS = [
  ...FRUITS.map((c) => ({ ...c, table: 'fruits' })),
  ...BASKETS.map((c) => ({ ...c, table: 'baskets' })),
]

/** Every fruit/basket pair as the interpreters see it. */
const PAIRS: Array<{ key: string; row: Row; hasNull: boolean }> = TABLES[0]!.rows.flatMap((f) =>
  TABLES[1]!.rows.map((b) => {
    const row: Row = {}
    for (const [k, v] of Object.entries(f)) row[`fruits.${k}`] = v
    for (const [k, v] of Object.entries(b)) row[`baskets.${k}`] = v
    return { key: `${f.id}:${b.id}`, row, hasNull: Object.values(row).includes(null) }
  }),
)

function constant(type: ColType): string {
  if (type === 'text') return JSON.stringify(pick(STRINGS))
  if (type === 'decimal') return pick(DECIMALS)
  if (type === 'bool') return rand() < 0.5 ? 'true' : 'false'
  return String(pick(INTS))
}

function expression(): string {
  const col = pick(COLUMNS)
  const ref = `input.${col.table}.${col.name}`
  const not = rand() < 0.25 ? 'not ' : ''
  const kind = rand()
  if (kind < 0.35) {
    const op = pick(['==', '!=', '<', '<=', '>', '>='])
    return rand() < 0.35
      ? `${not}${constant(col.type)} ${op} ${ref}`
      : `${not}${ref} ${op} ${constant(col.type)}`
  }
  if (kind < 0.5) {
    const [a, b] = pick([
      ['input.fruits.colour', 'input.baskets.colour'],
      ['input.fruits.name', 'input.baskets.owner'],
      ['input.fruits.id', 'input.baskets.id'],
    ])
    return `${not}${a} ${pick(['==', '!=', '<', '>='])} ${b}`
  }
  if (kind < 0.65) {
    const items = Array.from({ length: Math.floor(rand() * 4) }, () => constant(col.type))
    const coll =
      items.length === 0 ? 'set()' : rand() < 0.5 ? `{${items.join(', ')}}` : `[${items.join(', ')}]`
    return `${not}${ref} in ${coll}`
  }
  if (kind < 0.85) {
    const text = pick(COLUMNS.filter((c) => c.type === 'text'))
    return `${not}${pick(['startswith', 'endswith', 'contains'])}(input.${text.table}.${text.name}, ${JSON.stringify(pick(STRINGS))})`
  }
  if (kind < 0.92) return `${ref} = _`
  return `${not}${ref} ${pick(['==', '!='])} null`
}

const POLICY_BODIES: string[][] = Array.from({ length: POLICIES }, () =>
  Array.from({ length: 1 + Math.floor(rand() * 3) }, () =>
    Array.from({ length: 1 + Math.floor(rand() * 3) }, expression).join('; '),
  ),
)

/** One generated policy: its residual from partial evaluation and the row pairs it allows. */
interface Generated {
  text: string
  queries: Body[]
  support: Module[]
  allowed: Set<string>
}

async function generate(bodies: string[]): Promise<Generated> {
  const source = `package filters\n${bodies.map((b) => `include if {\n  ${b}\n}`).join('\n')}\n`
  const policy = compile({ 'filters.rego': parseModule(source, { file: 'filters.rego' }) }, {})
  const pe = await partialEvaluate(policy, 'data.filters.include', {
    unknowns: ['input.fruits', 'input.baskets'],
    nondeterministicBuiltins: true,
  })
  const query = policy.query('data.filters.include')
  const allowed = new Set<string>()
  for (const p of PAIRS) {
    const input: Record<string, Record<string, Cell>> = { fruits: {}, baskets: {} }
    for (const [k, v] of Object.entries(p.row)) {
      const [table, column] = k.split('.') as [string, string]
      ;(input[table] as Record<string, Cell>)[column] = v
    }
    const run = query.evalSync({ input: fromJS(input) })
    if (run.results.some((r) => r.expressions[0]?.value === true)) allowed.add(p.key)
  }
  return { text: bodies.join('\n  OR  '), queries: pe.queries, support: pe.support, allowed }
}

let generated: Promise<Generated[]> | undefined
const generatedPolicies = () => {
  generated ??= Promise.all(POLICY_BODIES.map(generate)).then((gs) => [
    ...gs,
    { text: '(no query: never)', queries: [], support: [], allowed: new Set<string>() },
    { text: '(empty query: always)', queries: [[]], support: [], allowed: new Set(PAIRS.map((p) => p.key)) },
  ])
  return generated
}

interface Checked {
  ran: number
  refused: number
}

async function checkDatabase(db: TestDatabase): Promise<Checked> {
  const out: Checked = { ran: 0, refused: 0 }
  const target = { kind: 'sql', dialect: db.dialect, variant: db.dialect } as const
  for (const { text, queries, support, allowed } of await generatedPolicies()) {
    const errors = checkFragments(queries, {
      constraints: new ConstraintSet([target]),
      shortNames: new Set(),
      support,
    })
    if (errors.length > 0) {
      out.refused++
      continue
    }
    const decision = queriesToUcast(queries, undefined)
    const node = decision.kind === 'condition' ? decision.node : undefined
    const where = decision.kind === 'never' ? undefined : renderSql(node, db.dialect)
    const got = new Set<string>()
    if (where !== undefined) {
      for (const r of await db.query(
        `SELECT fruits.id AS f, baskets.id AS b FROM fruits CROSS JOIN baskets ${where}`,
      )) {
        got.add(`${r.f}:${r.b}`)
      }
    }
    const ucast = PAIRS.filter(
      (p) =>
        decision.kind === 'always' ||
        (decision.kind === 'condition' && evalUcast(decision.node, p.row) === true),
    ).map((p) => p.key)
    const rego = PAIRS.filter((p) => evalResidual(queries, p.row))
    const context = `${db.dialect}: ${text}\n  ${where}`
    expect([...got].sort(), context).toEqual(ucast.sort())
    const residualKeys = new Set(rego.map((p) => p.key))
    expect(
      [...got].filter((k) => !residualKeys.has(k) || !allowed.has(k)),
      `fail-open rows, ${context}`,
    ).toEqual([])
    const exact = (keys: Iterable<string>) =>
      [...keys].filter((k) => !PAIRS.find((p) => p.key === k)!.hasNull).sort()
    expect(exact(got), `rows without NULLs, ${context}`).toEqual(exact(allowed))
    out.ran++
  }
  return out
}

interface DbEffectCase {
  name: string
  modules: Record<string, string>
  request: { path: string; headers: Record<string, string>; body: unknown }
  db: { table: string; rows: Array<Record<string, Cell>> }
  expected: { rows: Array<Record<string, Cell>>; dialects: string[] }
}

const DB_EFFECT: DbEffectCase[] = readdirSync(CASES_DIR)
  .filter((f) => f.includes('db_effect') && f.endsWith('.json'))
  .map((f) => JSON.parse(readFileSync(path.join(CASES_DIR, f), 'utf8')) as DbEffectCase)

const FRUIT_TABLE: TableSpec['columns'] = [
  { name: 'id', type: 'int', nullable: false },
  { name: 'name', type: 'text', nullable: false },
  { name: 'colour', type: 'text', nullable: false },
  { name: 'price', type: 'int', nullable: true },
]

async function checkDbEffect(db: TestDatabase): Promise<number> {
  let ran = 0
  for (const c of DB_EFFECT) {
    if (!c.expected.dialects.includes(db.dialect)) continue
    const text = JSON.stringify(c.request).replaceAll('{dialect}', db.dialect)
    const request = JSON.parse(text) as DbEffectCase['request']
    const modules = new Map(
      Object.entries(c.modules).map(([file, src]) => [file, parseModule(src, { file })] as const),
    )
    const service = new CompileService(new EngineBackend({ modules }))
    const out = await service.compile({
      path: request.path.replace(/^\/v1\/compile\//, ''),
      accept: request.headers.Accept,
      contentType: 'application/json',
      bodyText: JSON.stringify(request.body),
      metrics: false,
    })
    const result = out.body.result as { query: string } | undefined
    const got = result ? await db.query(`SELECT id FROM fruit ${result.query} ORDER BY id`) : []
    expect(
      got.map((r) => Number(r.id)),
      `${db.dialect}: ${c.name}: ${result?.query}`,
    ).toEqual(c.expected.rows.map((r) => r.id))
    ran++
  }
  return ran
}

function suite(dialect: SqlDialect, open: () => Promise<TestDatabase[]>) {
  let dbs: TestDatabase[] = []
  beforeAll(async () => {
    dbs = await open()
  })
  afterAll(async () => {
    for (const db of dbs) await db.close()
  })
  it(`runs ${POLICIES} generated policies on ${dialect} with the rows the policy allows`, async () => {
    const { ran, refused } = await checkDatabase(dbs[0]!)
    expect(ran).toBeGreaterThan(POLICIES / 3)
    console.log(`${dialect}: ${ran} generated policies checked, ${refused} refused by the fragment checks`)
  })
  it(`returns the conformance db_effect rows on ${dialect}`, async () => {
    expect(await checkDbEffect(dbs[1]!)).toBeGreaterThanOrEqual(5)
  })
}

const fruitTable = (rowsOf: DbEffectCase['db']['rows']): TableSpec => ({
  name: 'fruit',
  columns: FRUIT_TABLE,
  rows: rowsOf,
})
const effectRows = DB_EFFECT[0]?.db.rows ?? []

describe('SQL on SQLite (better-sqlite3)', () => {
  suite('sqlite', async () => [await openSqlite(TABLES), await openSqlite([fruitTable(effectRows)])])
})

if (!PG_URL) console.log('skipping PostgreSQL compile SQL tests: REGENT_TEST_PG_URL is not set')
describe.skipIf(!PG_URL)('SQL on PostgreSQL', () => {
  suite('postgresql', async () => [
    await openPostgres(PG_URL!, TABLES),
    await openPostgres(PG_URL!, [fruitTable(effectRows)]),
  ])
})

if (!MYSQL_URL) console.log('skipping MariaDB/MySQL compile SQL tests: REGENT_TEST_MYSQL_URL is not set')
describe.skipIf(!MYSQL_URL)('SQL on MariaDB/MySQL', () => {
  suite('mysql', async () => [
    await openMysql(MYSQL_URL!, TABLES),
    await openMysql(MYSQL_URL!, [fruitTable(effectRows)]),
  ])
})
