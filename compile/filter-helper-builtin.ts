/**
 * EOPA's test helper `filter.helper(rule, select, tables, opts)` (`import
 * data.system.eopa.utils.tests.v1.filter`): the rows a filter rule lets through, computed by a real
 * database. It creates SQLite tables from `tables` (every column typed `ANY`), compiles `rule` with
 * `rego.compile` for `sql+sqlite-internal` (case-sensitive `internal_startswith`/`endswith`/`contains`
 * functions stand in for LIKE, which ignores case in SQLite), runs `select` restricted by the
 * clause, and applies the rule's column masks to the rows (compile-details §15, docs/compile.md).
 *
 * EOPA writes the helper in Rego over `rego.compile` and `sql.send`; regent's `sql.send` opens
 * SQLite read-only (policies in production never write), so the database work is done here, and
 * the library module (FILTER_LIBRARY) only forwards to this built-in.
 *
 * opts: `debug` prints each statement, the compile response and the rows; `db` names a SQLite file
 * whose tables are kept afterwards (default: a private in-memory database); `mappings` are the
 * `sqlite-internal` table mappings; `masking` maps a result column to the `table.column` mask that
 * applies to it.
 */
import { randomUUID } from 'node:crypto'
import { createRequire } from 'node:module'
import type Database from 'better-sqlite3'
import type { BuiltinCaller, BuiltinContext } from '../core/rego/builtins/context.js'
import { defineBuiltin } from '../core/rego/builtins/define.js'
import { BuiltinError } from '../core/rego/builtins/errors.js'
import { objectOperand, stringOperand } from '../core/rego/builtins/operands.js'
import { evalError } from '../core/rego/eval/errors.js'
import { Policy } from '../core/rego/eval/policy.js'
import type { Location } from '../core/rego/syntax/ast.js'
import { t } from '../core/rego/types/index.js'
import {
  fromJS,
  isArray,
  isNumber,
  isObject,
  numberText,
  ObjectValue,
  toJSONText,
  type Value,
} from '../core/rego/values/index.js'
import { compileRequest } from './rego-compile-builtin.js'

/** The package tests import the helper from. */
export const FILTER_LIBRARY_PACKAGE = 'system.eopa.utils.tests.v1.filter'

/** The library module `regent test` and `regent eval` add when a module refers to the package. */
export const FILTER_LIBRARY = `package ${FILTER_LIBRARY_PACKAGE}

# regent's version of EOPA's filter test helper: compile/filter-helper-builtin.ts does the work.
helper(rule, select_sql, tables, opts) := regent.test.filter_helper(rule, select_sql, tables, opts)
`

const require = createRequire(import.meta.url)

/** The built-in behind `filter.helper` (tests only). */
export const filterHelper = defineBuiltin({
  name: 'regent.test.filter_helper',
  category: 'rego',
  description:
    "The rows of `select` over `tables` that filter rule `rule` lets through (EOPA's filter.helper).",
  args: [
    t.named('rule', t.string, 'the filter rule, `data.…`'),
    t.named('select', t.string, 'a SELECT over the tables'),
    t.named('tables', t.object(t.string, t.array(t.object(t.string, t.any))), 'rows by table name'),
    t.named('opts', t.object(t.string, t.any), 'debug, db, mappings, masking'),
  ],
  result: t.named('rows', t.array(t.object(t.string, t.any)), 'the rows, masked'),
  nondeterministic: true,
  impl: (ctx, [rule, select, tables, opts], location, caller) => {
    if (!caller || !(caller.policy instanceof Policy)) {
      throw new BuiltinError('filter.helper needs the policy of a test or eval query')
    }
    const run = new HelperRun(ctx, objectOperand(opts, 4), location)
    return run.rows(stringOperand(rule, 1), stringOperand(select, 2), objectOperand(tables, 3), caller)
  },
})

class HelperRun {
  readonly #debug: boolean
  readonly #file: string | undefined
  readonly #name: string
  readonly #opts: ObjectValue

  constructor(
    readonly ctx: BuiltinContext,
    opts: ObjectValue,
    readonly location: Location | undefined,
  ) {
    this.#opts = opts
    this.#debug = opts.get('debug') === true
    const db = opts.get('db')
    if (db !== undefined && typeof db !== 'string') throw new BuiltinError('opts.db: a file name is required')
    this.#file = db
    this.#name = db ?? `file:${randomUUID()}?mode=memory`
  }

  rows(rule: string, select: string, tables: ObjectValue, caller: BuiltinCaller): Value {
    const Sqlite = require('better-sqlite3') as typeof Database
    const db = new Sqlite(this.#file ?? ':memory:')
    try {
      for (const name of ['startswith', 'endswith', 'contains'] as const) {
        db.function(`internal_${name}`, { deterministic: true }, (a: unknown, b: unknown) =>
          typeof a === 'string' && typeof b === 'string' && stringMatch(name, a, b) ? 1 : 0,
        )
      }
      const names = this.#createTables(db, tables)
      const result = this.#compile(rule, caller)
      const rows = result === undefined ? [] : this.#select(db, select, result)
      if (!this.#file) for (const name of names) this.#exec(db, `DROP TABLE ${name}`)
      const masks = result?.get('masks')
      const out = masks && isObject(masks) ? this.#masked(rows, masks, select) : rows
      const value = fromJS(out)
      if (this.#debug) this.ctx.print(`list response: ${toJSONText(value)}`)
      return value
    } finally {
      db.close()
    }
  }

  // CREATE TABLE and INSERT … RETURNING * for each table, columns sorted, every column `ANY`.
  #createTables(db: Database.Database, tables: ObjectValue): string[] {
    const names: string[] = []
    for (const [key, rows] of tables.entries()) {
      if (typeof key !== 'string' || !isArray(rows))
        throw new BuiltinError('tables: arrays of rows by table name')
      const name = identifier(key)
      const columns = new Set<string>()
      for (const row of rows) {
        if (!isObject(row)) throw new BuiltinError(`tables.${key}: every row must be an object`)
        for (const k of row.keys()) if (typeof k === 'string') columns.add(k)
      }
      const sorted = [...columns].sort().map(identifier)
      this.#exec(db, `CREATE TABLE ${name} (${sorted.map((c) => `${c} ANY`).join(', ')})`)
      names.push(name)
      for (const row of rows as readonly ObjectValue[]) {
        const present = [...columns].sort().filter((c) => row.get(c) !== undefined)
        const values = present.map((c) => sqlLiteral(row.get(c) as Value))
        const cols = present.map(identifier).join(', ')
        this.#exec(db, `INSERT INTO ${name} (${cols}) VALUES (${values.join(', ')}) RETURNING *`)
      }
    }
    return names
  }

  #compile(rule: string, caller: BuiltinCaller) {
    const request = new ObjectValue()
    request.set('query', rule)
    request.set('target', 'sql+sqlite-internal')
    const mappings = this.#opts.get('mappings')
    if (mappings !== undefined) {
      const byDialect = new ObjectValue()
      byDialect.set('sqlite-internal', mappings)
      request.set('mappings', byDialect)
    }
    const result = compileRequest(this.ctx, request, caller, caller.policy as Policy, this.location)
    if (this.#debug)
      this.ctx.print(`rego.compile response: ${result === undefined ? '<undefined>' : toJSONText(result)}`)
    if (result === undefined) return undefined
    if (!isObject(result)) throw new BuiltinError('rego.compile gave no object')
    const failure = result.get('errors') ?? result.get('error')
    if (failure !== undefined) throw new BuiltinError(`rego.compile: ${toJSONText(failure)}`)
    return result
  }

  // The select with the clause: inside `WITH tmp AS (…)`, or added to the select's own WHERE.
  #select(db: Database.Database, select: string, result: ObjectValue): Array<Record<string, unknown>> {
    const clause = result.get('query')
    const where = typeof clause === 'string' ? clause : ''
    let sql: string
    if (/ where /i.test(select) && where !== '') sql = `${select} AND (${where.replace(/^WHERE /, '')})`
    else sql = `WITH tmp AS (${select}${where === '' ? '' : ` ${where}`}) SELECT * FROM tmp`
    const statement = this.#prepare(db, sql)
    if (!statement.reader) throw new BuiltinError('select: the statement returns no rows')
    // Named columns: a CTE makes duplicate names unique (`id`, `id:1`), as the reference's rows show.
    return statement.all() as Array<Record<string, unknown>>
  }

  // Each result column takes the mask `masking` names for it, or the one mask of that column name.
  #masked(rows: Array<Record<string, unknown>>, masks: ObjectValue, select: string) {
    if (/ as /i.test(select)) this.ctx.print('WARN: SELECT with AS aliases can conflict with masking')
    const columns = new Set(rows.flatMap((r) => Object.keys(r)))
    const masking = this.#opts.get('masking')
    const replacements = new Map<string, unknown>()
    for (const column of columns) {
      const named = masking && isObject(masking) ? masking.get(column) : undefined
      const candidates =
        typeof named === 'string'
          ? [maskAt(masks, named)]
          : [...masks.values()].map((t) => columnMask(t, column))
      const found = candidates.filter((m) => m !== undefined)
      if (found.length === 1) replacements.set(column, found[0])
      else if (found.length > 1)
        this.ctx.print(`WARN: cannot guess mask mapping for result column "${column}"`)
    }
    if (replacements.size === 0) return rows
    return rows.map((row) => {
      const out = { ...row }
      for (const [column, value] of replacements) if (column in out) out[column] = value
      return out
    })
  }

  #exec(db: Database.Database, sql: string): void {
    const statement = this.#prepare(db, sql)
    if (statement.reader) statement.all()
    else statement.run()
  }

  #prepare(db: Database.Database, sql: string): Database.Statement {
    if (this.#debug) this.ctx.print(`executing query ${sql} against ${this.#name}`)
    try {
      return db.prepare(sql)
    } catch (err) {
      // Raised, not swallowed as built-in errors are: a test whose SELECT is wrong says why.
      throw evalError(
        'eval_builtin_error',
        `filter.helper: ${(err as Error).message} in ${sql}`,
        this.location,
      )
    }
  }
}

function stringMatch(kind: 'startswith' | 'endswith' | 'contains', a: string, b: string): boolean {
  if (kind === 'startswith') return a.startsWith(b)
  if (kind === 'endswith') return a.endsWith(b)
  return a.includes(b)
}

// A table or column name as written: plain names bare, anything else double-quoted.
function identifier(name: string): string {
  return /^[A-Za-z_][A-Za-z0-9_]*$/.test(name) ? name : `"${name.replaceAll('"', '""')}"`
}

// Strings quoted, numbers and booleans as written, null as NULL, composites as their JSON text.
function sqlLiteral(v: Value): string {
  if (v === null) return 'NULL'
  if (typeof v === 'boolean') return v ? 'TRUE' : 'FALSE'
  if (typeof v === 'string') return `'${v.replaceAll("'", "''")}'`
  if (isNumber(v)) return numberText(v)
  return `'${toJSONText(v).replaceAll("'", "''")}'`
}

// `masks.<table>.<column>.replace.value` for "table.column".
function maskAt(masks: ObjectValue, tableColumn: string): unknown {
  const dot = tableColumn.indexOf('.')
  if (dot < 0) return undefined
  const table = masks.get(tableColumn.slice(0, dot))
  return table && isObject(table) ? columnMask(table, tableColumn.slice(dot + 1)) : undefined
}

function columnMask(table: Value, column: string): unknown {
  if (!isObject(table)) return undefined
  const mask = table.get(column)
  if (!mask || !isObject(mask)) return undefined
  const replace = mask.get('replace')
  if (!replace || !isObject(replace)) return undefined
  const value = replace.get('value')
  return value === undefined ? undefined : JSON.parse(toJSONText(value))
}
