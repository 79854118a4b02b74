/**
 * The real `CompileBackend`: regent's Rego engine over a set of modules and base data. The policy is
 * compiled once per `update` (on first use) and shared by every request: partial evaluation for the
 * filters, plain evaluation for mask rules. The relay calls `update` whenever it promotes a bundle;
 * `regent run -s` whenever its policies change.
 */
import { isLosslessNumber, LosslessNumber } from 'lossless-json'
import type { BuiltinContextOptions } from '../core/rego/builtins/context.js'
import { createBuiltinContext } from '../core/rego/builtins/context.js'
import {
  type PartialOptions,
  type PartialResult,
  partialEvaluate,
  partialEvaluateByTemplate,
} from '../core/rego/eval/partial.js'
import {
  compile,
  DEFAULT_EVALUATION_BUDGET,
  type EvaluationBudget,
  type Module,
  type Policy,
  toOpaJson,
} from '../core/rego/index.js'
import {
  isArray,
  isObject,
  isSet,
  numberText,
  ObjectValue,
  parseNumber,
  type RegoNumber,
  toJSONText,
  type Value,
} from '../core/rego/values/index.js'
import { EvaluatorRequired } from './errors.js'
import type {
  CompileBackend,
  EvaluationRequest,
  JsonValue,
  PartialEvaluationRequest,
  PartialEvaluationResult,
} from './types.js'

/** The policies a backend serves: parsed modules by file name, and the base data document. */
export interface PolicySet {
  modules: ReadonlyMap<string, Module> | Readonly<Record<string, Module>>
  data?: unknown
}

/** Options of {@link EngineBackend}. */
export interface EngineBackendOptions {
  /** Built-in settings (`opa.runtime()`, `http.send` limits, inter-query cache) for every request. */
  builtins?: () => BuiltinContextOptions
  /**
   * Timeout and work limit of each evaluation and partial evaluation, counted from the start of
   * each call (core/rego/eval/budget.ts), or a function read at each call (a pool worker answering
   * one request at a time under that request's deadline). Default: {@link DEFAULT_EVALUATION_BUDGET}.
   */
  budget?: EvaluationBudget | (() => EvaluationBudget)
  /**
   * Hosts `http.send` and `net.lookup_ip_addr` may reach (capabilities `allow_net`); `[]` forbids
   * the network. Default: undefined, every host (as OPA without an allow_net).
   */
  allowNet?: readonly string[]
  /**
   * Answer from confirmed query templates only, never running the evaluator: partial evaluation
   * throws `EvaluatorRequired` when the query has no template or a known step calls a built-in
   * `admit` refuses, and evaluation (mask rules) always does. A residual whose template the
   * evaluator has not confirmed comes back with `unconfirmed` set. For a thread that must stay
   * responsive (the relay's main thread): a template's work is linear in the rules and the input.
   */
  templatesOnly?: { admit: (builtin: string) => boolean }
}

/** Per-call overrides of {@link EngineBackendOptions} (a pool worker's own budget, say). */
export interface EngineCallOptions {
  budget?: EvaluationBudget
  allowNet?: readonly string[]
  /** Cancels the evaluation (`eval_cancel_error`), e.g. when the client went away. */
  signal?: AbortSignal
}

/** A `CompileBackend` over regent's Rego engine. */
export class EngineBackend implements CompileBackend {
  #modules: Module[] = []
  #source: PolicySet = { modules: {} }
  #policy: Policy | undefined
  readonly #options: EngineBackendOptions

  constructor(policies: PolicySet = { modules: {} }, options: EngineBackendOptions = {}) {
    this.#options = options
    this.update(policies)
  }

  /** Replaces the policies (a new modules array purges the endpoint's annotation caches). */
  update(policies: PolicySet): void {
    this.#source = policies
    const mods = policies.modules
    this.#modules = mods instanceof Map ? [...mods.values()] : Object.values(mods as Record<string, Module>)
    this.#policy = undefined
  }

  modules(): readonly Module[] {
    return this.#modules
  }

  /** The compiled policy (compiled on first use; throws `RegoErrors` when the modules do not compile). */
  policy(): Policy {
    if (!this.#policy) {
      const mods = this.#source.modules
      const record = mods instanceof Map ? Object.fromEntries(mods) : (mods as Record<string, Module>)
      this.#policy = compile(record, this.#source.data ?? {})
    }
    return this.#policy
  }

  async partialEvaluate(
    request: PartialEvaluationRequest,
    call: EngineCallOptions = {},
  ): Promise<PartialEvaluationResult> {
    const policy = this.policy()
    const options: PartialOptions = {
      ...(request.input !== undefined ? { input: jsonToValue(request.input) } : {}),
      unknowns: request.unknowns,
      disableInlining: request.disableInlining,
      nondeterministicBuiltins: request.nondeterministicBuiltins,
      ctx: this.#context(policy, call),
      budget: call.budget ?? this.#budget(),
      ...(call.signal ? { signal: call.signal } : {}),
    }
    const templatesOnly = this.#options.templatesOnly
    if (templatesOnly) {
      const found = partialEvaluateByTemplate(policy, request.query, options, templatesOnly.admit)
      if (typeof found === 'string')
        throw new EvaluatorRequired(`${request.query}: ${found}`, found === 'no template')
      return {
        ...residualOf(found.result),
        ...(found.confirmed ? {} : { unconfirmed: { confirm: found.confirm, reject: found.reject } }),
      }
    }
    return residualOf(await partialEvaluate(policy, request.query, options))
  }

  async evaluate(request: EvaluationRequest, call: EngineCallOptions = {}): Promise<JsonValue | undefined> {
    if (this.#options.templatesOnly) throw new EvaluatorRequired(`${request.query} needs the evaluator`, true)
    const policy = this.policy()
    const input = request.input === undefined ? undefined : jsonToValue(request.input)
    const run = await policy.query(request.query).eval({
      ...(input !== undefined ? { input } : {}),
      ctx: this.#context(policy, call),
      budget: call.budget ?? this.#budget(),
      ...(call.signal ? { signal: call.signal } : {}),
    })
    const first = run.results[0]?.expressions[0]?.value
    return first === undefined ? undefined : valueToJson(first)
  }

  toAstJson(result: PartialEvaluationResult): JsonValue {
    return {
      queries: result.queries.map((q) => toOpaJson(q) as JsonValue),
      support: result.support.map((m) => toOpaJson(m) as JsonValue),
    }
  }

  #budget(): EvaluationBudget {
    const budget = this.#options.budget
    return (typeof budget === 'function' ? budget() : budget) ?? DEFAULT_EVALUATION_BUDGET
  }

  #context(policy: Policy, call: EngineCallOptions) {
    const allowNet = call.allowNet ?? this.#options.allowNet
    return createBuiltinContext({
      ...(policy.regoMetadata ? { regoMetadata: policy.regoMetadata } : {}),
      ...(policy.parseModule ? { parseModule: policy.parseModule } : {}),
      ...(this.#options.builtins?.() ?? {}),
      ...(allowNet !== undefined ? { allowNet } : {}),
      ...(call.signal ? { signal: call.signal } : {}),
    })
  }
}

/** The engine's residual as the compile endpoint takes it. */
function residualOf(result: PartialResult): PartialEvaluationResult {
  return {
    queries: result.queries,
    support: result.support,
    metrics: result.metrics,
    failedExpressions: result.failedExpressions,
  }
}

/** A request's JSON (exact numbers) as a Rego value. */
export function jsonToValue(v: JsonValue): Value {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v
  if (typeof v === 'number') return parseNumber(String(v)) ?? v
  if (isLosslessNumber(v)) return parseNumber(v.value) ?? Number(v.value)
  if (Array.isArray(v)) return v.map(jsonToValue)
  const out = new ObjectValue()
  for (const [k, x] of Object.entries(v)) out.set(k, jsonToValue(x))
  return out
}

/** A Rego value as JSON with exact numbers (sets become arrays, non-string keys their JSON text). */
export function valueToJson(v: Value): JsonValue {
  if (v === null || typeof v === 'boolean' || typeof v === 'string') return v
  if (isArray(v)) return v.map(valueToJson)
  if (isSet(v)) return v.values().map(valueToJson)
  if (isObject(v)) {
    const out: { [key: string]: JsonValue } = {}
    for (const [k, x] of v.entries()) out[typeof k === 'string' ? k : toJSONText(k)] = valueToJson(x)
    return out
  }
  return new LosslessNumber(numberText(v as RegoNumber))
}
