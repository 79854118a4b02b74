/**
 * Partial evaluation (OPA's `rego.Partial`): evaluates a query with some refs unknown and returns
 * what is left — residual queries (a disjunction of conjunctions) and support modules — instead of
 * answers. Inlining, saving and support rules happen inside the evaluator through the hooks of
 * partial-eval.ts; this file compiles the query, runs it (again, after each asynchronous built-in
 * such as `http.send` resolves, as normal queries do), and copy-propagates each residual.
 */
import { type BuiltinContext, createBuiltinContext, type DataOverrides } from '../builtins/context.js'
import { constantValue } from '../compiler/constant-value.js'
import { compileQuery } from '../compiler/query.js'
import { isGeneratedVar } from '../compiler/terms.js'
import { bodyString } from '../compiler/text.js'
import { compileError, RegoErrors } from '../errors.js'
import type { Body, Expr, Import, Module, RefTerm, Term } from '../syntax/ast.js'
import { parseQuery, parseTermText } from '../syntax/query.js'
import type { Value } from '../values/index.js'
import type { AsyncOutcome } from './async-outcome.js'
import { Frame } from './bindings.js'
import { awaitWithinDeadline, type EvaluationBudget, evaluationLimits } from './budget.js'
import { AsyncCallNeeded } from './calls.js'
import { Evaluator } from './evaluator.js'
import type { PExpr } from './ir.js'
import { PartialEval } from './partial-eval.js'
import { eqOperator } from './partial-plug.js'
import type { QueryTemplate } from './partial-template.js'
import {
  confirmTemplate,
  dropTemplate,
  templateAdmits,
  templateFor,
  templateMode,
  templateUsable,
} from './partial-template-cache.js'
import { fillTemplate } from './partial-template-fill.js'
import type { Policy } from './policy.js'
import { prepareBody, Scope } from './prepare.js'
import { residualOfLocals } from './residual-locals.js'
import { astUnits } from './residual-units.js'

/** Options of {@link partialEvaluate}. */
export interface PartialOptions {
  /** The input document (a value or JSON-like data); undefined for none. */
  input?: Value
  /**
   * Refs treated as unknown (`input.fruits`, or parsed ref terms). Default `['input']`. An empty
   * list means nothing is unknown. Read as immutable: what is derived from it is kept per array.
   */
  unknowns?: ReadonlyArray<string | RefTerm>
  /** Rules that must not be inlined (`data.filters.allowed`): kept as support rules. */
  disableInlining?: readonly string[]
  /** Evaluate non-deterministic built-ins (`http.send`, `time.now_ns`) when their arguments are known. */
  nondeterministicBuiltins?: boolean
  /** Keep rules and functions that depend on unknowns as support rules, without copy propagation (OPA's `--shallow-inlining`). */
  shallowInlining?: boolean
  /** Package of the support rules, dotted (`partial`, the default; OPA's `rego.PartialNamespace`). */
  partialNamespace?: string
  /**
   * Support rules made from the policy's rules keep their own package paths, so they can replace
   * those rules (OPA's `rego.SkipPartialNamespace`, what `regent build -O` uses); synthetic rules
   * (negations) still go under `partialNamespace`.
   */
  skipPartialNamespace?: boolean
  /**
   * Imports that decide the query's keywords (`regent eval -p --import rego.v2`), as OPA's
   * rego.parseQuery reads them (syntax/query.ts).
   */
  queryImports?: readonly Import[]
  /** Built-in context (clock, caches, `http.send` settings); a fresh one by default. */
  ctx?: BuiltinContext
  /** Milliseconds since the epoch after which evaluation is cancelled. */
  deadline?: number
  signal?: AbortSignal
  /** Maximum units of work (budget.ts; 0: unlimited). */
  instructionLimit?: number
  /** Timeout and work limit (budget.ts); an explicit `deadline` or `instructionLimit` overrides it. */
  budget?: EvaluationBudget
  /** Start from a caller's `with data… as` (`rego.compile` run inside a test). */
  overrides?: DataOverrides
}

/** The residual of a partial evaluation, as OPA's `PartialQueries`. */
export interface PartialResult {
  /** Disjunction of conjunctions: none means never true, an empty body means always true. */
  queries: Body[]
  /** Rules the residual refers to (`data.partial…`). */
  support: Module[]
  /** Timers in nanoseconds, named as OPA names them. */
  metrics: Record<string, number>
  /** Expressions (as written) that produced no result during the evaluation, in the order they failed. */
  failedExpressions: Expr[]
}

interface Prepared {
  body: PExpr[]
  names: readonly string[]
}

const LANGUAGE = new Set(['internal.print', 'print', 'trace', 'internal.test_case'])
const prepared = new WeakMap<Policy, Map<string, Prepared>>()

/**
 * Partially evaluates `query` against `policy`. Throws `RegoErrors` when the query or an unknown
 * does not compile, and evaluation errors as `evaluate` does.
 *
 * @example
 * const { queries } = await partialEvaluate(policy, 'data.filters.include', {
 *   input: fromJS({ user: 'bob' }), unknowns: ['input.tickets'] })
 */
export async function partialEvaluate(
  policy: Policy,
  query: string,
  options: PartialOptions = {},
): Promise<PartialResult> {
  const known = new Map<string, AsyncOutcome>()
  // The deadline is fixed once: every attempt and every awaited built-in count against it.
  const { budget: _, ...rest } = options
  const limited: PartialOptions = { ...rest, ...evaluationLimits(options) }
  for (;;) {
    try {
      return partialEvaluateSync(policy, query, limited, known)
    } catch (err) {
      if (!(err instanceof AsyncCallNeeded)) throw err
      known.set(err.key, await awaitWithinDeadline(err.promise, limited.deadline, options.signal))
    }
  }
}

/**
 * Partial evaluation without awaiting: throws `AsyncCallNeeded` when an asynchronous built-in must
 * run first (`asyncResults` holds the results known so far).
 */
export function partialEvaluateSync(
  policy: Policy,
  query: string,
  options: PartialOptions = {},
  asyncResults?: Map<string, AsyncOutcome>,
): PartialResult {
  const t0 = process.hrtime.bigint()
  const q = prepareQuery(policy, query, options.queryImports ?? [])
  const t1 = process.hrtime.bigint()
  const unknowns = unknownPaths(options.unknowns)
  const template = templateUsable(options) ? templateFor(policy, query, q.body, unknowns) : undefined
  if (!template) return evaluateResidual(policy, q, unknowns, options, asyncResults, t0, t1)
  const ctx = options.ctx ?? createBuiltinContext()
  const limits = evaluationLimits(options)
  const answer = templateAnswer(template, templateEvaluator(policy, ctx, options, limits), t0, t1)
  if (answer !== 'check' && answer !== undefined) return answer
  // A rule's template is trusted once the evaluator has given the same residual for it.
  const direct = evaluateResidual(policy, q, unknowns, { ...options, ctx }, asyncResults, t0, t1)
  if (answer === 'check') {
    const again = fillTemplate(template, templateEvaluator(policy, ctx, options, limits))
    if (again) confirmTemplate(policy, query, unknowns, again, direct)
  }
  return direct
}

/** A residual from a query template alone ({@link partialEvaluateByTemplate}). */
export interface TemplateResidual {
  result: PartialResult
  /**
   * Whether the evaluator has confirmed every rule and failed step this residual rests on; when not,
   * the caller compares it with a trusted answer and calls `confirm` or `reject`.
   */
  confirmed: boolean
  /** A trusted answer agreed: what this residual rests on is confirmed for later requests. */
  confirm(): void
  /** A trusted answer disagreed: the template is dropped, the query has none from now on. */
  reject(): void
}

/**
 * Partial evaluation from the query's template only, never the evaluator: its work is linear in the
 * policy's rules and the input, so a caller that must stay responsive (the relay's main thread) can
 * run it in place. Otherwise why not: 'no template' when the query has none (or the options leave
 * the template's shape) or a known step calls a built-in `admit` refuses, the same for every input;
 * 'built-in failed' when one failed on this input (the evaluator has its own handling of that).
 * Throws evaluation errors past the budget as `partialEvaluate` does.
 */
export function partialEvaluateByTemplate(
  policy: Policy,
  query: string,
  options: PartialOptions,
  admit: (builtin: string) => boolean,
): TemplateResidual | 'no template' | 'built-in failed' {
  if (!templateUsable(options) || templateMode() === 'verify') return 'no template'
  const t0 = process.hrtime.bigint()
  const q = prepareQuery(policy, query, [])
  const t1 = process.hrtime.bigint()
  const unknowns = unknownPaths(options.unknowns)
  const template = templateFor(policy, query, q.body, unknowns)
  if (!template || !templateAdmits(template, admit)) return 'no template'
  const ctx = options.ctx ?? createBuiltinContext()
  const filled = fillTemplate(template, templateEvaluator(policy, ctx, options, evaluationLimits(options)))
  if (!filled) return 'built-in failed'
  const unverified = filled.unverified
  return {
    result: {
      queries: filled.queries,
      support: [],
      failedExpressions: filled.failed,
      metrics: timers(t0, t1, process.hrtime.bigint()),
    },
    confirmed: unverified.length === 0,
    confirm: () => {
      for (const c of unverified) c.verified = true
    },
    reject: () => dropTemplate(policy, query, unknowns),
  }
}

function templateEvaluator(
  policy: Policy,
  ctx: BuiltinContext,
  options: PartialOptions,
  limits: ReturnType<typeof evaluationLimits>,
): Evaluator {
  return new Evaluator(policy, {
    ctx,
    ...(options.input !== undefined ? { input: options.input } : {}),
    ...limits,
    ...(options.signal ? { signal: options.signal } : {}),
  })
}

/**
 * The filled template as the answer when every rule that held is confirmed; 'check' when one is not
 * (the evaluator answers, and the template is filled again afterwards to compare: a fill kept alive
 * through the evaluator's run would train its allocation sites as long-lived, see
 * partial-template-fill.ts); undefined when a built-in failed.
 */
function templateAnswer(
  template: QueryTemplate,
  e: Evaluator,
  t0: bigint,
  t1: bigint,
): PartialResult | 'check' | undefined {
  const filled = fillTemplate(template, e)
  if (!filled) return undefined
  if (filled.unverified.length > 0 || templateMode() === 'verify') return 'check'
  const t2 = process.hrtime.bigint()
  return {
    queries: filled.queries,
    support: [],
    failedExpressions: filled.failed,
    metrics: timers(t0, t1, t2),
  }
}

function timers(t0: bigint, t1: bigint, t2: bigint): Record<string, number> {
  return { timer_rego_query_compile_ns: Number(t1 - t0), timer_rego_partial_eval_ns: Number(t2 - t1) }
}

/** Partial evaluation by the evaluator. */
function evaluateResidual(
  policy: Policy,
  q: Prepared,
  unknowns: Value[][],
  options: PartialOptions,
  asyncResults: Map<string, AsyncOutcome> | undefined,
  t0: bigint,
  t1: bigint,
): PartialResult {
  const disableInlining = (options.disableInlining ?? []).map((r) => dataPath(r))
  // The evaluator adds the policy's rego.metadata/parse_module hooks (withPolicyHooks).
  const ctx = options.ctx ?? createBuiltinContext()
  const e = new Evaluator(policy, {
    ctx,
    ...(options.input !== undefined ? { input: options.input } : {}),
    ...(asyncResults ? { asyncResults } : {}),
    ...evaluationLimits(options),
    ...(options.signal ? { signal: options.signal } : {}),
    ...(options.overrides ? { overrides: options.overrides } : {}),
  })
  const frame = new Frame(q.names.length, q.names)
  const pe = new PartialEval(e, frame, {
    unknowns,
    disableInlining,
    nondeterministicBuiltins: options.nondeterministicBuiltins ?? false,
    shallowInlining: options.shallowInlining === true,
    namespace: (options.partialNamespace ?? 'partial').split('.'),
    skipNamespace: options.skipPartialNamespace === true,
  })
  const live = new Set<string>()
  for (const u of unknowns) live.add(String(u[0]))
  for (const n of q.names) if (!isGeneratedVar(n) && !n.startsWith('$')) live.add(n)
  const queries: Body[] = []
  const propagation = { live, arity: pe.arity }
  e.evalQuery(q.body, frame, () => {
    // The common shape is built copy-propagated as it is plugged (residual-locals.ts); its units are
    // those of the plugged query, as below.
    const direct =
      !pe.shallow && !hasBindings(frame)
        ? residualOfLocals(pe.stack.entries(), pe.plugger, propagation)
        : undefined
    if (direct) {
      e.charge(direct.units)
      queries.push(direct.body)
      return false
    }
    const body = pe.plugger.query(pe.stack.entries())
    body.push(...bindings(pe, frame))
    // Each residual is kept until the end: its size is work (and memory) under the budget.
    e.charge(astUnits(body))
    queries.push(pe.propagate(body, propagation))
    return false
  })
  return {
    queries,
    support: pe.support.list(),
    failedExpressions: [...pe.failed],
    metrics: timers(t0, t1, process.hrtime.bigint()),
  }
}

// Whether {@link bindings} has anything to write.
function hasBindings(frame: Frame): boolean {
  const names = frame.names
  for (let slot = 0; slot < names.length; slot++) {
    if (!(names[slot] as string).startsWith('$') && frame.s[slot] !== undefined) return true
  }
  return false
}

// The query vars bound in the top frame, as `x = value`, so callers can read them from the residual.
function bindings(pe: PartialEval, frame: Frame): Expr[] {
  const out: Expr[] = []
  const names = frame.names
  for (let slot = 0; slot < names.length; slot++) {
    const name = names[slot] as string
    if (name.startsWith('$') || frame.s[slot] === undefined) continue
    const value = pe.plugger.term({ k: 1, slot, name, src: { type: 'var', value: name } }, frame)
    out.push({ type: 'expr', index: 0, terms: [eqOperator(), { type: 'var', value: name }, value] })
  }
  return out.sort((a, b) => varName(a).localeCompare(varName(b)))
}

function varName(e: Expr): string {
  const t = (e.terms as Term[])[1]
  return t?.type === 'var' ? t.value : ''
}

function prepareQuery(policy: Policy, query: string, imports: readonly Import[]): Prepared {
  let cache = prepared.get(policy)
  if (!cache) {
    cache = new Map()
    prepared.set(policy, cache)
  }
  // The imports change how the text parses, so they are part of the key.
  const key =
    imports.length === 0
      ? query
      : `${imports.map((i) => i.path.value.map((t) => String(t.value)).join('.')).join(';')}\n${query}`
  let q = cache.get(key)
  if (!q) {
    const body = parseQuery(query, { imports })
    const compiled = compileQuery(policy.compiler, body, { rewriteEquals: true })
    const scope = new Scope()
    const ctx = {
      root: policy.root,
      builtins: policy.builtins,
      isLanguageBuiltin: (n: string) => LANGUAGE.has(n),
    }
    q = { body: prepareBody(ctx, scope, compiled.body), names: scope.names }
    if (cache.size > 1000) cache.clear()
    cache.set(key, q)
  }
  return q
}

/**
 * An unknown given as text: one term. OPA reads it as a query and refuses more than one expression
 * (`input; input.users`) in its own words before looking at the term.
 */
function unknownTerm(u: string): Term {
  let body: Body | undefined
  try {
    body = parseQuery(u)
  } catch {
    body = undefined
  }
  if (body !== undefined && body.length > 1)
    throw new Error(`expected exactly one term but got: ${bodyString(body)}`)
  return parseTermText(u)
}

const INPUT: readonly string[] = ['input']
// By the caller's array: a compile endpoint passes the same unknowns array for a rule's requests.
const pathsOf = new WeakMap<readonly (string | RefTerm)[], Value[][]>()

function unknownPaths(unknowns: readonly (string | RefTerm)[] = INPUT): Value[][] {
  let paths = pathsOf.get(unknowns)
  if (!paths) {
    paths = unknowns.map(unknownPath)
    pathsOf.set(unknowns, paths)
  }
  return paths
}

/** `input.fruits` (text or ref term) as its root and ground path. */
function unknownPath(u: string | RefTerm): Value[] {
  const term: Term = typeof u === 'string' ? unknownTerm(u) : u
  const parts = term.type === 'ref' ? term.value : [term]
  const head = parts[0]
  if (head?.type !== 'var' || (head.value !== 'input' && head.value !== 'data')) {
    throw new RegoErrors([compileError(term.location, `unknowns must be refs to input or data: ${text(u)}`)])
  }
  const path: Value[] = [head.value]
  for (const p of parts.slice(1)) {
    const v = constantValue(p)
    if (v === undefined) break
    path.push(v)
  }
  return path
}

/** `data.a.b` as the data path `['a', 'b']`. */
function dataPath(ref: string): Value[] {
  const term = parseTermText(ref)
  const parts = term.type === 'ref' ? term.value : [term]
  const head = parts[0]
  if (head?.type !== 'var' || head.value !== 'data') {
    throw new RegoErrors([compileError(term.location, `disableInlining must be refs to data: ${ref}`)])
  }
  const path: Value[] = []
  for (const p of parts.slice(1)) {
    const v = constantValue(p)
    if (v === undefined) break
    path.push(v)
  }
  return path
}

function text(u: string | RefTerm): string {
  return typeof u === 'string' ? u : JSON.stringify(u.value.map((t) => t.value))
}
