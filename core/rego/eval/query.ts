/**
 * A query prepared against a policy, evaluated as many times as needed: its body is compiled and
 * prepared once; each evaluation creates an Evaluator and a frame and collects OPA's result set
 * (`expressions` with their values, `bindings` of the user's variables).
 */
import { type BuiltinContext, nowNs } from '../builtins/context.js'
import type { BuiltinCallError } from '../builtins/errors.js'
import type { CompiledQuery } from '../compiler/compiler.js'
import { isGeneratedVar } from '../compiler/terms.js'
import { bodyString } from '../compiler/text.js'
import type { Location } from '../syntax/ast.js'
import type { Value } from '../values/index.js'
import type { AsyncOutcome } from './async-outcome.js'
import { Frame, plug } from './bindings.js'
import { awaitWithinDeadline, type EvaluationBudget, evaluationLimits } from './budget.js'
import { AsyncCallNeeded } from './calls.js'
import { type EvalPolicy, Evaluator, type EvaluatorOptions } from './evaluator.js'
import { K, type PExpr } from './ir.js'

/** The value of one expression of the query in one result. */
export interface ExpressionValue {
  value: Value
  text: string
  location: { row: number; col: number } | undefined
}

/** One solution of a query. */
export interface QueryResult {
  expressions: ExpressionValue[]
  bindings: Map<string, Value>
}

/** Options of one evaluation. */
export interface QueryOptions extends Omit<EvaluatorOptions, 'ctx' | 'asyncResults'> {
  ctx?: BuiltinContext
  /** Timeout and work limit (budget.ts); an explicit `deadline` or `instructionLimit` overrides it. */
  budget?: EvaluationBudget
}

/** Everything one evaluation produced besides its results. */
export interface QueryRun {
  results: QueryResult[]
  builtinErrors: BuiltinCallError[]
  instructions: number
}

/** One top-level expression as the user wrote it, and the var that captures its value. */
export interface QueryExpr {
  text: string
  location: Location | undefined
  capture: string | undefined
}

/** A compiled, prepared query. */
export class PreparedQuery {
  #slots: Map<string, number> | undefined

  constructor(
    readonly policy: EvalPolicy,
    readonly compiled: CompiledQuery,
    readonly body: PExpr[],
    readonly names: readonly string[],
    readonly exprs: readonly QueryExpr[],
  ) {}

  /** Evaluates synchronously; throws `AsyncCallNeeded` if an asynchronous built-in is called. */
  evalSync(options: QueryOptions = {}, asyncResults?: Map<string, AsyncOutcome>): QueryRun {
    let ctx = options.ctx ?? lazyContext(this.policy, options.strictBuiltinErrors === true)
    const tracer = options.tracer
    if (tracer && !ctx.trace) {
      // `trace(note)` reaches the tracer through the context.
      ctx = Object.create(ctx, { trace: { value: (m: string, l?: Location) => tracer.note(m, l) } })
    }
    const limits = evaluationLimits(options)
    // NOTE(regent): every option written out, not spread: an object built by spreading `options`
    // made each of the Evaluator's option reads a slow dictionary lookup (a quarter of a small
    // evaluation's time in the RBAC profile, docs/performance.md). The mapped type makes a new
    // option fail the build until it is passed on here.
    const evaluatorOptions: { [K in keyof Required<EvaluatorOptions>]: EvaluatorOptions[K] } = {
      input: options.input,
      ctx,
      strictBuiltinErrors: options.strictBuiltinErrors,
      earlyExit: options.earlyExit,
      indexing: options.indexing,
      fastPaths: options.fastPaths,
      generatorIndex: options.generatorIndex,
      caching: options.caching,
      deadline: limits.deadline,
      signal: options.signal,
      instructionLimit: limits.instructionLimit,
      tracer,
      asyncResults,
      overrides: options.overrides,
    }
    const e = new Evaluator(this.policy, evaluatorOptions)
    const frame = new Frame(this.names.length, this.names)
    const results: QueryResult[] = []
    // Built once per prepared query: an evaluation of a small policy costs a few microseconds.
    this.#slots ??= new Map(this.names.map((n, i) => [n, i]))
    const slots = this.#slots
    const text = tracer?.query ? bodyString(this.compiled.body) : ''
    const location = this.compiled.body[0]?.location
    tracer?.query?.('Enter', text, location)
    e.evalQuery(this.body, frame, () => {
      tracer?.query?.('Exit', text, location)
      results.push(this.#result(frame, slots))
      tracer?.query?.('Redo', text, location)
      return false
    })
    return { results, builtinErrors: e.builtinErrors, instructions: e.instructions }
  }

  /**
   * Evaluates, awaiting asynchronous built-ins: each one suspends the attempt, and the query is
   * evaluated again with every result known so far. Output of `print` is only written for the
   * attempt that completes.
   */
  async eval(options: QueryOptions = {}): Promise<QueryRun> {
    const base = options.ctx ?? lazyContext(this.policy, options.strictBuiltinErrors === true)
    // The deadline is fixed once: every attempt and every awaited built-in count against it.
    const { budget: _, ...rest } = options
    const limited: QueryOptions = { ...rest, ...evaluationLimits(options) }
    const known = new Map<string, AsyncOutcome>()
    for (;;) {
      const printed: Array<[string, Location | undefined]> = []
      // Same clock and cache across attempts; only print is captured.
      const ctx: BuiltinContext = Object.create(base, {
        print: { value: (m: string, l?: Location) => printed.push([m, l]) },
      })
      try {
        const run = this.evalSync({ ...limited, ctx }, known)
        for (const [m, l] of printed) base.print(m, l)
        return run
      } catch (err) {
        if (!(err instanceof AsyncCallNeeded)) throw err
        known.set(err.key, await awaitWithinDeadline(err.promise, limited.deadline, options.signal))
      }
    }
  }

  #result(frame: Frame, slots: Map<string, number>): QueryResult {
    const bindings = new Map<string, Value>()
    const rewritten = this.compiled.rewrittenVars
    for (const [i, name] of this.names.entries()) {
      const user = rewritten.get(name) ?? name
      if (isGeneratedVar(user) || user.startsWith('$')) continue
      const v = plug({ k: K.Var, slot: i, name, src: { type: 'var', value: name } }, frame)
      if (v !== undefined) bindings.set(user, v)
    }
    const expressions: ExpressionValue[] = this.exprs.map((x) => {
      let value: Value = true
      if (x.capture !== undefined) {
        const slot = slots.get(x.capture)
        const v =
          slot === undefined
            ? undefined
            : plug({ k: K.Var, slot, name: x.capture, src: { type: 'var', value: '' } }, frame)
        if (v !== undefined) value = v
      }
      return {
        value,
        text: x.text,
        location: x.location ? { row: x.location.row, col: x.location.col } : undefined,
      }
    })
    return { expressions, bindings }
  }
}

/**
 * A built-in context whose clock and cache are created on first use: most evaluations call no
 * built-in that needs them, and reading the clock costs more than a simple evaluation. A class
 * (not an object literal with getters) keeps construction cheap.
 */
class LazyContext implements BuiltinContext {
  readonly random = Math.random
  readonly regoMetadata: BuiltinContext['regoMetadata']
  readonly parseModule: BuiltinContext['parseModule']
  // Plain fields, not #private: `eval()` derives per-attempt contexts with Object.create.
  lazyTimeNs: bigint | undefined
  lazyCache: Map<string, unknown> | undefined

  constructor(
    policy: EvalPolicy,
    readonly strictBuiltinErrors: boolean,
  ) {
    this.regoMetadata = policy.regoMetadata
    this.parseModule = policy.parseModule
  }

  get timeNs(): bigint {
    this.lazyTimeNs ??= nowNs()
    return this.lazyTimeNs
  }

  get cache(): Map<string, unknown> {
    this.lazyCache ??= new Map()
    return this.lazyCache
  }

  print(message: string): void {
    process.stderr.write(`${message}\n`)
  }
}

function lazyContext(policy: EvalPolicy, strictBuiltinErrors: boolean): BuiltinContext {
  return new LazyContext(policy, strictBuiltinErrors)
}
