/**
 * Running one complete input of the shell: definitions go into the current module (with OPA's
 * `Rule 'p' defined in package repl. Type 'show' to see rules.`), queries are compiled in the
 * current package with its imports and evaluated against the loaded data and every module, with
 * the input document taken from `data.repl.input` as OPA's REPL does.
 */

import { BufferTracer, prettyTrace, type TraceOp } from '../../core/rego/eval/trace.js'
import {
  type Body,
  type Import,
  type Package,
  type Policy,
  parseQuery,
  type QueryResult,
  RegoErrors,
  EvalError as RegoEvalError,
  type Rule,
  type Term,
} from '../../core/rego/index.js'
import type { Value } from '../../core/rego/values/index.js'
import { errorText, evalErrorText, resultsText, type Timers } from './print.js'
import { DEFAULT_PACKAGE, defaultPackage, ruleName } from './state.js'
import { parseStatement, type Statement } from './statements.js'
import type { Outcome, Session } from './types.js'

/**
 * Handles `text` (one or more lines). `final` is true when no more lines will be added to it.
 * Never throws: every failure is printed and the shell goes on.
 */
export async function execute(session: Session, text: string, final: boolean): Promise<Outcome> {
  const { state } = session
  let statement: Statement
  try {
    statement = parseStatement(
      text,
      {
        regoVersion: state.options.regoVersion,
        packageText: state.packageText,
        imports: state.currentModule?.imports ?? [],
        isGlobal: (name) => state.isGlobal(name),
      },
      final,
    )
  } catch (err) {
    session.write(errorText(err))
    return 'done'
  }
  try {
    switch (statement.kind) {
      case 'incomplete':
        return 'incomplete'
      case 'error':
        session.write(errorText(statement.errors))
        return 'done'
      case 'query':
        await evaluateQuery(session, statement.body)
        return 'done'
      case 'definitions':
        if (statement.package) state.enterPackage(statement.package)
        if (statement.imports.length > 0) state.addImports(statement.imports)
        for (const rule of statement.rules) await define(session, rule)
        return 'done'
    }
  } catch (err) {
    session.write(errorText(err))
    return 'done'
  }
}

/** Adds one rule to the current module and says so (pretty output only, as OPA). */
async function define(session: Session, rule: Rule): Promise<void> {
  const { state } = session
  let redefined: boolean
  const inputValue = shellInputTerm(session, rule)
  if (inputValue) {
    redefined = state.input !== undefined
    const text = inputValue.location?.text ?? ''
    const value = await evaluateTerm(session, text)
    if (value === undefined) {
      session.write('error: input is undefined\n')
      return
    }
    state.ensureModule()
    state.setInput({ text, value })
  } else {
    redefined = state.addRules([rule]).redefined
  }
  if (session.settings.format === 'pretty') {
    session.write(
      `Rule '${headText(rule)}' ${redefined ? 're-defined' : 'defined'} in package ${state.packageText}. Type 'show' to see rules.\n`,
    )
  }
}

/**
 * The value term of `input := value` typed in package repl under Rego v1, else undefined. OPA 1.x
 * refuses a rule named input ("rules must not shadow input"); the shell evaluates the value once
 * and uses it as the input document instead, which is what `input := {...}` meant in OPA 0.x.
 */
function shellInputTerm(session: Session, rule: Rule): Term | undefined {
  const { state } = session
  const head = rule.head
  if (state.options.regoVersion !== 'v1' || state.packageText !== DEFAULT_PACKAGE) return undefined
  if (ruleName(rule) !== 'input' || head.ref.length !== 1 || head.args || head.key || rule.default)
    return undefined
  if (!rule.generatedBody || rule.else || !head.value) return undefined
  return head.value
}

/** Evaluates one term in the current package; undefined when it has no value. */
async function evaluateTerm(session: Session, text: string): Promise<Value | undefined> {
  const { policy } = session.state
  const run = await policy.prepare(parseQuery(text), queryContext(session)).eval({})
  return run.results[0]?.expressions[0]?.value
}

/** Compiles and evaluates a query, printing its results or its error. */
export async function evaluateQuery(session: Session, body: Body): Promise<void> {
  const { state, settings } = session
  const timers: Timers | undefined = settings.metrics ? {} : undefined
  const time = async <T>(name: string, f: () => T | Promise<T>): Promise<T> => {
    const start = process.hrtime.bigint()
    try {
      return await f()
    } finally {
      if (timers) timers[name] = (timers[name] ?? 0) + Number(process.hrtime.bigint() - start)
    }
  }
  const policy = state.policy
  let results: QueryResult[]
  try {
    const input = state.input?.value ?? (await replInput(policy))
    const prepared = await time('timer_rego_query_compile_ns', () =>
      policy.prepare(body, queryContext(session)),
    )
    const tracer = settings.explain === 'off' ? undefined : new BufferTracer()
    const run = await time('timer_rego_query_eval_ns', () =>
      prepared.eval({
        ...(input !== undefined ? { input } : {}),
        ...(tracer ? { tracer } : {}),
        strictBuiltinErrors: settings.strictBuiltinErrors,
      }),
    )
    if (tracer) {
      const trace = prettyTrace(tracer.events, EXPLAIN_OPS[settings.explain])
      if (trace !== '') session.write(`${trace}\n`)
    }
    results = run.results
  } catch (err) {
    if (err instanceof RegoEvalError) session.write(evalErrorText(err, settings.format))
    else if (err instanceof RegoErrors) session.write(errorText(err))
    else throw err
    return
  }
  session.write(resultsText(results, settings.format, settings.prettyLimit, timers))
}

/** Which trace events each explain mode prints (all of them for `full`). */
const EXPLAIN_OPS: Record<string, ReadonlySet<TraceOp> | undefined> = {
  full: undefined,
  notes: new Set<TraceOp>(['Note']),
  fails: new Set<TraceOp>(['Fail']),
}

/** The input document: `data.repl.input` (a data file loaded as `repl.input:file.json`, or rules). */
async function replInput(policy: Policy): Promise<Value | undefined> {
  const run = await policy.query(`data.${DEFAULT_PACKAGE}.input`).eval({})
  return run.results[0]?.expressions[0]?.value
}

/** The package and imports queries are compiled in (package repl before any definition). */
function queryContext(session: Session): { package: Package; imports: Import[] } {
  const module = session.state.currentModule
  return module
    ? { package: module.package, imports: module.imports }
    : { package: defaultPackage(), imports: [] }
}

/** A rule's head reference as OPA prints it in messages (`p`, `a.b.c`, `p[x]`). */
function headText(rule: Rule): string {
  return rule.head.ref
    .map((t, i) => {
      if (i === 0) return t.type === 'var' ? t.value : ruleName(rule)
      if (t.type === 'string' && /^[A-Za-z_][A-Za-z0-9_]*$/.test(t.value)) return `.${t.value}`
      return `[${t.location?.text ?? (t.type === 'var' ? t.value : JSON.stringify(t.type === 'string' ? t.value : ''))}]`
    })
    .join('')
}
