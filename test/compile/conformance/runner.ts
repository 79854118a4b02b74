/**
 * The compile conformance runner: reads the cases of `../shared/conformance/compile` (format in its
 * README), runs the `http` and `db_effect` cases against a live compile endpoint on 127.0.0.1 (the
 * real routes over the real engine), the unit-like cases against the functions they name, and
 * reports per-kind results. Cases of EOPA's test built-ins (`rego.compile`, `filter.helper`) run with
 * `regent test`'s built-ins (builtin-cases.ts); documentation-only UCAST forms and obsolete
 * signatures are skipped with a reason.
 */
import { readdirSync, readFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import path from 'node:path'
import { LosslessNumber } from 'lossless-json'
import pino from 'pino'
import { EngineBackend } from '../../../compile/backend.js'
import { hintsFor } from '../../../compile/hints.js'
import { translateField } from '../../../compile/mappings.js'
import { parseUnknowns } from '../../../compile/request.js'
import { compileRoutes } from '../../../compile/route.js'
import { renderSql } from '../../../compile/sql/index.js'
import type { SqlDialect } from '../../../compile/types.js'
import type { UcastNode } from '../../../compile/ucast.js'
import { createApp, startServer } from '../../../core/http/index.js'
import { parseModule, parseQuery } from '../../../core/rego/index.js'
import { fromJS } from '../../../core/rego/values/index.js'
import { openMysql, openPostgres, openSqlite, type TableSpec, type TestDatabase } from '../sql-databases.js'
import { runBuiltinCase } from './builtin-cases.js'

/** Where the cases live, relative to the repository root. */
export const DEFAULT_FOLDER = '../shared/conformance/compile'

/** One case file. */
export interface CompileCase {
  file: string
  name: string
  kind: string
  exactness?: string
  modules: Record<string, string>
  data?: unknown
  request: Record<string, unknown>
  expected: Record<string, unknown>
  sequence?: { id: string; step: number }
  equivalent_request?: Record<string, unknown>
  requires?: Record<string, string>
  rego_version?: number
  /** The case shows an older built-in signature or result field. */
  obsolete_api?: boolean
  db?: { table: string; rows: Array<Record<string, unknown>> }
}

/** What running one case gave. */
export interface CaseOutcome {
  file: string
  kind: string
  status: 'passed' | 'failed' | 'skipped'
  reason?: string
}

/** Reads every case of `folder`, sorted by file name (sequences run in step order). */
export function loadCases(folder: string): CompileCase[] {
  return readdirSync(folder)
    .filter((f) => f.endsWith('.json'))
    .sort()
    .map((file) => ({ ...(JSON.parse(readFileSync(path.join(folder, file), 'utf8')) as CompileCase), file }))
    .sort((a, b) =>
      a.sequence && b.sequence && a.sequence.id === b.sequence.id ? a.sequence.step - b.sequence.step : 0,
    )
}

/** Where regent answers differently on purpose (docs/compile.md, docs/partial-evaluation.md). */
export const DELIBERATE: Record<string, string> = {
  'checks_comparison_reversed_10_unknown_operator_gt_sic.json':
    'flipped comparisons are mirrored (10 <= x is x gte 10), not negated as the reference does',
  'run_compile_api_cache_step2_policy_without_metadata_no_unknowns_unconditional_deny.json':
    'without unknowns from the request or annotations regent uses the spec default [input]',
  'ucast_sql_unit_nil_argument.json': 'a Go nil value has no JSON form; the API never produces one',
  // The derived expectation says an undefined ref-head mask rule leaves `masks` out; the engine (as
  // OPA's evalTree.leaves) builds the enclosing objects of the rule's ref even when the rule is
  // undefined, so the mask document is {"tickets":{"description":{"replace":{}}}} and is attached.
  'column_masks_doc_opa_default_allow_user_caesar.json':
    'derived expectation disputed: the mask document is the (non-empty) tree of the undefined rule',
}

const OBSOLETE = 'shows an older built-in signature or result field (EOPA before v1.38.0)'

const SKIPPED: Record<string, string> = {
  ucast_syntax_example: 'documentation of UCAST forms the API never emits',
  eopa_test_analysis: 'analysis of EOPA tests, nothing to run',
}

/** A live compile endpoint plus the test HTTP server `http.send` cases call. */
class Endpoint {
  readonly backend = new EngineBackend({ modules: {} }, { builtins: () => ({ runtime: this.runtime }) })
  runtime = fromJS({})
  #modulesKey = ''
  constructor(
    readonly url: string,
    readonly testServer: string,
    readonly stop: () => Promise<void>,
  ) {}

  load(c: CompileCase): void {
    const key = JSON.stringify([c.modules, c.data, c.rego_version, c.sequence?.id])
    if (key === this.#modulesKey) return
    this.#modulesKey = key
    const modules = new Map(
      Object.entries(c.modules).map(([file, text]) => [
        file,
        parseModule(text.replaceAll('{{TESTSERVER_URL}}', this.testServer), {
          file,
          regoVersion: c.rego_version === 0 ? 'v0' : 'v1',
        }),
      ]),
    )
    this.backend.update({ modules, data: c.data ?? {} })
  }

  async request(
    req: Record<string, unknown>,
  ): Promise<{ status: number; contentType: string; text: string }> {
    const headers = (req.headers ?? {}) as Record<string, string>
    const body =
      req.body === null || req.body === undefined
        ? undefined
        : JSON.stringify(req.body).replaceAll('{{TESTSERVER_URL}}', this.testServer)
    const res = await fetch(`${this.url}${req.path as string}`, {
      method: req.method as string,
      headers,
      ...(body !== undefined ? { body } : {}),
    })
    return { status: res.status, contentType: res.headers.get('Content-Type') ?? '', text: await res.text() }
  }
}

async function startEndpoint(): Promise<Endpoint> {
  const test: Server = createServer((_req, res) => {
    res.writeHead(200, { 'Content-Type': 'application/json' })
    res.end('{"p": true}')
  })
  await new Promise<void>((resolve) => test.listen(0, '127.0.0.1', resolve))
  const testUrl = `http://127.0.0.1:${(test.address() as AddressInfo).port}`
  const logger = pino({ level: 'silent' })
  let endpoint: Endpoint | undefined
  const app = createApp({ errorStyle: 'opa', logger })
  const backend = {
    modules: () => (endpoint as Endpoint).backend.modules(),
    partialEvaluate: (r: Parameters<EngineBackend['partialEvaluate']>[0]) =>
      (endpoint as Endpoint).backend.partialEvaluate(r),
    evaluate: (r: Parameters<EngineBackend['evaluate']>[0]) => (endpoint as Endpoint).backend.evaluate(r),
    toAstJson: (r: Parameters<EngineBackend['toAstJson']>[0]) => (endpoint as Endpoint).backend.toAstJson(r),
  }
  app.route('/', compileRoutes({ backend, logger }).app)
  const server = await startServer({ fetch: app.fetch, host: '127.0.0.1', port: 0, logger, name: 'compile' })
  endpoint = new Endpoint(server.url, testUrl, async () => {
    await server.stop()
    await new Promise<void>((resolve) => test.close(() => resolve()))
  })
  return endpoint
}

/** Runs every case of `folder` (or those whose file name contains `filter`). */
export async function runAll(folder: string = DEFAULT_FOLDER, filter?: string): Promise<CaseOutcome[]> {
  const cases = loadCases(folder).filter((c) => !filter || c.file.includes(filter))
  const endpoint = await startEndpoint()
  const outcomes: CaseOutcome[] = []
  try {
    for (const c of cases) {
      const skip = SKIPPED[c.kind] ?? DELIBERATE[c.file] ?? (c.obsolete_api ? OBSOLETE : undefined)
      if (skip) {
        outcomes.push({ file: c.file, kind: c.kind, status: 'skipped', reason: skip })
        continue
      }
      try {
        const reason = await runCase(endpoint, c)
        outcomes.push({
          file: c.file,
          kind: c.kind,
          status: reason ? 'failed' : 'passed',
          ...(reason ? { reason } : {}),
        })
      } catch (err) {
        outcomes.push({
          file: c.file,
          kind: c.kind,
          status: 'failed',
          reason: `threw: ${(err as Error).message}`,
        })
      }
    }
  } finally {
    await endpoint.stop()
  }
  return outcomes
}

/** Runs one case; returns why it failed, or undefined when it passed. */
async function runCase(endpoint: Endpoint, c: CompileCase): Promise<string | undefined> {
  switch (c.kind) {
    case 'http':
      return runHttp(endpoint, c)
    case 'db_effect':
      return runDbEffect(endpoint, c)
    case 'ucast_to_sql_unit': {
      const r = c.request as { ucast: UcastNode; dialect: string }
      const dialect = (r.dialect === 'postgres' ? 'postgresql' : r.dialect) as SqlDialect
      const ucast = JSON.parse(JSON.stringify(r.ucast).replaceAll('"__GO_NIL__"', 'null')) as UcastNode
      return compare(renderSql(ucast, dialect), c.expected.sql)
    }
    case 'translate_field_unit': {
      const r = c.request as { field: string; translations: Parameters<typeof translateField>[1] }
      return compare(translateField(r.field, r.translations), c.expected.field)
    }
    case 'rego_compile_builtin':
    case 'filter_helper_builtin':
      return runBuiltinCase(c, compare)
    case 'hints_unit': {
      const r = c.request as { failed_expressions: string[]; unknowns: string[] }
      const failed = r.failed_expressions.flatMap((text) => parseQuery(text))
      const hints = hintsFor(failed, parseUnknowns(r.unknowns)).map((h) => h.message)
      return compare(hints, c.expected.hint_messages)
    }
    default:
      return `unknown kind ${c.kind}`
  }
}

async function runHttp(endpoint: Endpoint, c: CompileCase): Promise<string | undefined> {
  endpoint.load(c)
  if (c.requires?.runtime) endpoint.runtime = fromJS(JSON.parse(c.requires.runtime))
  const expected = c.expected as {
    status?: number
    body?: unknown
    body_subset?: Record<string, unknown>
    body_text?: string
    content_type?: string
    ignore_keys?: string[]
    illustrative?: string
  }
  const derived = (c as unknown as { derived_expected_not_from_source?: typeof expected })
    .derived_expected_not_from_source
  const inconsistent = (c as unknown as { doc_inconsistent?: boolean }).doc_inconsistent === true
  const want = (expected.status === undefined || inconsistent) && derived ? derived : expected
  if (want.status === undefined) return 'no expected status'
  const res = await endpoint.request(c.equivalent_request ?? c.request)
  if (res.status !== want.status)
    return `status ${res.status}, want ${want.status}: ${res.text.slice(0, 300)}`
  const actual = JSON.parse(res.text) as Record<string, unknown>
  for (const key of want.ignore_keys ?? []) delete actual[key]
  if (want.body !== undefined) {
    const diff = compare(actual, want.body)
    if (diff) return diff
  } else if (want.body_subset) {
    for (const [k, v] of Object.entries(want.body_subset)) {
      const diff = compare(actual[k], v)
      if (diff) return `${k}: ${diff}`
    }
  }
  if (want.content_type && res.contentType !== want.content_type) return `content type ${res.contentType}`
  if (want.body_text !== undefined && res.text !== want.body_text)
    return `body text ${JSON.stringify(res.text)}`
  return undefined
}

async function runDbEffect(endpoint: Endpoint, c: CompileCase): Promise<string | undefined> {
  endpoint.load(c)
  const expected = c.expected as { rows: Array<Record<string, unknown>>; dialects: string[] }
  const table: TableSpec = {
    name: c.db?.table ?? 'fruit',
    columns: [
      { name: 'id', type: 'int', nullable: false },
      { name: 'name', type: 'text', nullable: false },
      { name: 'colour', type: 'text', nullable: false },
      { name: 'price', type: 'int', nullable: true },
    ],
    rows: (c.db?.rows ?? []) as TableSpec['rows'],
  }
  const opened: TestDatabase[] = [await openSqlite([table])]
  if (process.env.REGENT_TEST_PG_URL) opened.push(await openPostgres(process.env.REGENT_TEST_PG_URL, [table]))
  if (process.env.REGENT_TEST_MYSQL_URL)
    opened.push(await openMysql(process.env.REGENT_TEST_MYSQL_URL, [table]))
  try {
    for (const db of opened) {
      if (!expected.dialects.includes(db.dialect)) continue
      const request = JSON.parse(JSON.stringify(c.request).replaceAll('{dialect}', db.dialect)) as Record<
        string,
        unknown
      >
      const res = await endpoint.request(request)
      if (res.status !== 200) return `${db.dialect}: status ${res.status}: ${res.text.slice(0, 200)}`
      const body = JSON.parse(res.text) as { result?: { query?: string } }
      const rows = body.result ? await db.query(`SELECT * FROM ${table.name} ${body.result.query ?? ''}`) : []
      const got = rows.map((r) => normalizeRow(r)).sort(byId)
      const diff = compare(got, expected.rows.map(normalizeRow).sort(byId))
      if (diff) return `${db.dialect} (${body.result?.query}): ${diff}`
    }
    return undefined
  } finally {
    for (const db of opened) await db.close()
  }
}

function normalizeRow(r: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(
    Object.entries(r).map(([k, v]) => [
      k,
      typeof v === 'bigint' || (typeof v === 'string' && /^\d+$/.test(v) && k !== 'name') ? Number(v) : v,
    ]),
  )
}

function byId(a: Record<string, unknown>, b: Record<string, unknown>): number {
  return Number(a.id) - Number(b.id)
}

/** Compares parsed JSON (key order ignored); returns a short difference or undefined. */
export function compare(actual: unknown, expected: unknown): string | undefined {
  const a = JSON.stringify(sortKeys(actual))
  const e = JSON.stringify(sortKeys(expected))
  return a === e ? undefined : `got ${a.slice(0, 400)}, want ${e.slice(0, 400)}`
}

function sortKeys(v: unknown): unknown {
  if (v instanceof LosslessNumber) return Number(v.value)
  if (Array.isArray(v)) return v.map(sortKeys)
  if (v && typeof v === 'object') {
    return Object.fromEntries(
      Object.entries(v)
        .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
        .map(([k, x]) => [k, sortKeys(x)]),
    )
  }
  return v
}

/** The per-kind table and the closing `N passed, M failed` line. */
export function summarize(outcomes: readonly CaseOutcome[]): string {
  const kinds = new Map<string, { passed: number; failed: number; skipped: number }>()
  for (const o of outcomes) {
    const k = kinds.get(o.kind) ?? { passed: 0, failed: 0, skipped: 0 }
    k[o.status]++
    kinds.set(o.kind, k)
  }
  const lines = ['kind                      passed  failed  skipped']
  for (const [kind, k] of [...kinds].sort(([a], [b]) => a.localeCompare(b))) {
    lines.push(
      `${kind.padEnd(26)}${String(k.passed).padStart(6)}${String(k.failed).padStart(8)}${String(k.skipped).padStart(9)}`,
    )
  }
  const passed = outcomes.filter((o) => o.status === 'passed').length
  const failed = outcomes.filter((o) => o.status === 'failed').length
  const skipped = outcomes.length - passed - failed
  lines.push(`${passed} passed, ${failed} failed, ${skipped} skipped`)
  return lines.join('\n')
}
