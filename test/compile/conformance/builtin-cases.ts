/**
 * Cases of EOPA's test built-ins (`rego_compile_builtin`, `filter_helper_builtin`): the case's
 * modules and data compiled as `regent test` compiles them (cli/test-builtins.ts), the call of
 * `request.builtin` with `request.args` and `request.with` evaluated once and compared with the
 * expected value, subset, undefined or error text (rows for `filter.helper`), then every test rule
 * of the case's modules run and required to pass, with the lines they print matched against the
 * expected verbose output's print lines.
 */
import { TEST_BUILTINS, withTestLibraries } from '../../../cli/test-builtins.js'
import { createBuiltinContext } from '../../../core/rego/builtins/context.js'
import { compilePolicy } from '../../../core/rego/eval/policy.js'
import { parseModule } from '../../../core/rego/index.js'
import type { Module } from '../../../core/rego/syntax/ast.js'
import { toJSONText, type Value } from '../../../core/rego/values/index.js'
import type { CompileCase } from './runner.js'

interface BuiltinExpectation {
  value?: unknown
  value_subset?: Record<string, unknown>
  undefined?: boolean
  error?: boolean
  error_text?: string
  rows?: unknown[]
  rows_count?: number
  rows_contain?: Array<Record<string, unknown>>
  verbose_stdout_patterns?: string[]
}

/** Runs one built-in case; returns why it failed, or undefined when it passed. */
export async function runBuiltinCase(
  c: CompileCase,
  compare: (a: unknown, e: unknown) => string | undefined,
): Promise<string | undefined> {
  const modules = new Map<string, Module>()
  for (const [file, text] of Object.entries(c.modules)) {
    modules.set(file, parseModule(text, { file, regoVersion: c.rego_version === 0 ? 'v0' : 'v1' }))
  }
  const query = callQuery(c.request)
  const policy = compilePolicy(withTestLibraries(modules, query), c.data ?? {}, {
    tests: true,
    builtins: TEST_BUILTINS,
  })
  const expected = c.expected as BuiltinExpectation
  const printed: string[] = []
  const ctx = () => createBuiltinContext({ print: (m) => printed.push(m) })

  let value: Value | undefined
  let error: Error | undefined
  try {
    const run = await policy.query(query).eval({ ctx: ctx() })
    value = run.results[0]?.bindings.get('__result__')
  } catch (err) {
    error = err as Error
  }
  const failure = checkCall(expected, value, error, compare)
  if (failure) return failure

  printed.length = 0
  for (const test of testRules(modules)) {
    const run = await policy.query(test).eval({ ctx: ctx() })
    if (run.results[0]?.expressions[0]?.value !== true) return `${test} did not pass`
  }
  for (const pattern of expected.verbose_stdout_patterns ?? []) {
    // Lines a test prints are indented by two spaces in verbose output; the rest is the runner's.
    if (!pattern.startsWith('^  ')) continue
    const re = new RegExp(`^${pattern.slice(3)}`)
    if (!printed.some((line) => re.test(line))) return `no printed line matches ${pattern}`
  }
  return undefined
}

/** `__result__ := <builtin>(<args>) with <target> as <value> …` */
function callQuery(request: Record<string, unknown>): string {
  const args = (request.args as unknown[]).map((a) => JSON.stringify(a)).join(', ')
  const withs = Object.entries((request.with ?? {}) as Record<string, unknown>)
    .map(([target, v]) => ` with ${target} as ${JSON.stringify(v)}`)
    .join('')
  return `__result__ := ${request.builtin as string}(${args})${withs}`
}

function checkCall(
  expected: BuiltinExpectation,
  value: Value | undefined,
  error: Error | undefined,
  compare: (a: unknown, e: unknown) => string | undefined,
): string | undefined {
  if (expected.error || expected.error_text !== undefined) {
    if (!error) return `no error, got ${value === undefined ? 'undefined' : toJSONText(value)}`
    if (expected.error_text !== undefined && !error.message.includes(expected.error_text)) {
      return `error ${JSON.stringify(error.message)}, want ${JSON.stringify(expected.error_text)}`
    }
    return undefined
  }
  if (error) return `error: ${error.message}`
  if (expected.undefined) return value === undefined ? undefined : `got ${toJSONText(value)}`
  if (value === undefined) return 'undefined'
  const actual = JSON.parse(toJSONText(value)) as Record<string, unknown>
  if (expected.value !== undefined) return compare(actual, expected.value)
  if (expected.rows !== undefined) return compare(sortedRows(actual), sortedRows(expected.rows))
  for (const [k, v] of Object.entries(expected.value_subset ?? {})) {
    const diff = compare(actual[k], v)
    if (diff) return `${k}: ${diff}`
  }
  if (expected.rows_count !== undefined) {
    const rows = actual as unknown as unknown[]
    if (!Array.isArray(rows) || rows.length !== expected.rows_count) {
      return `rows ${JSON.stringify(actual)}, want ${expected.rows_count}`
    }
    for (const row of expected.rows_contain ?? []) {
      if (!rows.some((r) => !compare(r, row)))
        return `no row ${JSON.stringify(row)} in ${JSON.stringify(rows)}`
    }
  }
  return undefined
}

// Rows compared as a set: the helper's SELECT has no ORDER BY.
function sortedRows(rows: unknown): unknown {
  return Array.isArray(rows) ? rows.map((r) => JSON.stringify(r)).sort() : rows
}

/** `data.<package>.test_…` of every test rule, once each. */
function testRules(modules: ReadonlyMap<string, Module>): string[] {
  const out = new Set<string>()
  for (const m of modules.values()) {
    const pkg = m.package.path
      .slice(1)
      .map((t) => String(t.value))
      .join('.')
    for (const rule of m.rules) {
      const head = rule.head.ref[0]
      const name = head?.type === 'var' ? head.value : undefined
      if (name?.startsWith('test_') && rule.head.ref.length === 1) out.add(`data.${pkg}.${name}`)
    }
  }
  return [...out]
}
