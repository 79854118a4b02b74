/**
 * Compile requests answered on the relay's main thread, without the hop to a worker thread and
 * back, when they are cheap by construction: the query has a residual template (core/rego/eval/
 * partial-template.ts) whose known steps call only built-ins linear in their arguments, the body is
 * small, and the served policies are small enough to hold a second copy here. Such a request costs
 * tens of microseconds, about what the hop alone costs (docs/performance.md, "Compile over HTTP").
 * Everything else (no template, mask rules, other built-ins, any error) goes to the workers, which
 * keep runaway isolation and give every refusal.
 *
 * A template's rules are trusted here only once a worker's answer agreed: until then the request
 * also goes to a worker, which answers it, and the two answers are compared; a difference drops the
 * template on this thread for good (`settle`).
 */
import type { CompileAnswer, CompileRequest } from '../../compile/answer.js'
import { EngineBackend } from '../../compile/backend.js'
import { CompileService } from '../../compile/compile.js'
import { EvaluatorRequired } from '../../compile/errors.js'
import { serializeJson } from '../../compile/response.js'
import type { Unconfirmed } from '../../compile/types.js'
import type { LoadReport, ServedState } from './protocol.js'
import { ServedPolicies } from './served-policies.js'

/** Served bundles larger than this (inflated) are not parsed and compiled a second time here. */
export const LANE_MAX_INFLATED_BYTES = 256 * 1024
/** Request bodies larger than this go to a worker (parsing them would hold this thread). */
export const LANE_MAX_BODY_CHARS = 16 * 1024

/**
 * Built-ins a known step may call here: each runs in time and memory linear in its arguments, which
 * the body limit bounds. Not regular expressions, globs, JSON schemas, JWTs, crypto, templates or
 * anything whose output can outgrow its input (`replace`, `strings.repeat`, `sprintf`).
 */
const LINEAR_BUILTINS: ReadonlySet<string> = new Set([
  'neq',
  'lt',
  'gt',
  'lte',
  'gte',
  'internal.member_2',
  'internal.member_3',
  'count',
  'plus',
  'minus',
  'mul',
  'div',
  'rem',
  'abs',
  'startswith',
  'endswith',
  'contains',
  'lower',
  'upper',
  'concat',
  'indexof',
  'substring',
  'split',
  'trim',
  'trim_left',
  'trim_right',
  'trim_prefix',
  'trim_suffix',
  'trim_space',
  'to_number',
  'object.get',
  'array.concat',
  'is_string',
  'is_number',
  'is_boolean',
  'is_array',
  'is_object',
  'is_set',
  'is_null',
  'type_name',
])

/** Paths remembered as needing the evaluator; past it the set starts over (clients choose paths). */
const MAX_PATHS_TO_WORKERS = 1024

/** A request tried here: the answer, and what to settle when it rests on an unconfirmed template. */
export interface LaneAttempt {
  answer: CompileAnswer
  unconfirmed?: Unconfirmed
}

/** Counts for `/v1/relay/status`. */
export interface LaneStats {
  /** Whether the served policies are loaded here (within the size bound). */
  loaded: boolean
  /** Requests answered here. */
  answered: number
  /** Templates dropped here because a worker's answer differed. */
  rejected: number
}

/** The main thread's templates-only copy of the served policies. */
export class MainThreadLane {
  readonly #engine: EngineBackend
  readonly #policies: ServedPolicies
  readonly #service: CompileService
  /** Loads run one after another, each on the previous one's result. */
  #loading: Promise<void> = Promise.resolve()
  #pending = 0
  #loaded = false
  /**
   * Rule paths that needed the evaluator under the loaded policies (no template, a mask rule), so
   * their next requests skip this thread. By path alone: a request with options of its own
   * (unknowns under `data`, `disableInlining`) sends its path to the workers until the next
   * bundle, a cost and never a wrong answer.
   */
  readonly #toWorkers = new Set<string>()
  #answered = 0
  #rejected = 0

  constructor(options: { instructionLimit: number; timeoutMs: number }) {
    this.#engine = new EngineBackend(
      { modules: {} },
      {
        allowNet: [],
        budget: { instructionLimit: options.instructionLimit, timeoutMs: options.timeoutMs },
        templatesOnly: { admit: (name) => LINEAR_BUILTINS.has(name) },
      },
    )
    this.#policies = new ServedPolicies(this.#engine)
    this.#service = new CompileService(this.#policies)
  }

  /**
   * Loads a new served set. Until it has loaded, every request goes to the workers (which receive
   * the set before any later request), so no request is answered from older policies than theirs.
   */
  load(state: ServedState): Promise<void> {
    this.#pending++
    this.#loaded = false
    this.#loading = this.#loading.then(async () => {
      const cap = Math.min(state.maxInflatedBytes ?? LANE_MAX_INFLATED_BYTES, LANE_MAX_INFLATED_BYTES)
      const report: LoadReport = await this.#policies.load({ ...state, maxInflatedBytes: cap })
      this.#toWorkers.clear()
      this.#pending--
      this.#loaded = this.#pending === 0 && report.error === undefined && report.modules > 0
      if (this.#loaded) this.#loaded = this.#compiled()
    })
    return this.#loading
  }

  // Compiled once here, not by the first request: policies that do not compile stay with the
  // workers, which answer their errors, instead of being compiled again for every request.
  #compiled(): boolean {
    try {
      this.#engine.policy()
      return true
    } catch {
      return false
    }
  }

  /** The answer when this thread can give it; undefined sends the request to a worker. */
  async attempt(request: CompileRequest): Promise<LaneAttempt | undefined> {
    if (!this.#loaded || request.metrics || request.bodyText.length > LANE_MAX_BODY_CHARS) return undefined
    if (request.path !== undefined && this.#toWorkers.has(request.path)) return undefined
    try {
      const output = await this.#service.compile(request)
      const answer: CompileAnswer = {
        status: 200,
        contentType: output.mediaType,
        text: serializeJson(output.body, request.pretty),
      }
      if (!output.unconfirmed) this.#answered++
      return { answer, ...(output.unconfirmed ? { unconfirmed: output.unconfirmed } : {}) }
    } catch (err) {
      if (err instanceof EvaluatorRequired && err.lasting && request.path !== undefined) {
        if (this.#toWorkers.size >= MAX_PATHS_TO_WORKERS) this.#toWorkers.clear()
        this.#toWorkers.add(request.path)
      }
      // Every error is the workers' to answer, in their words.
      return undefined
    }
  }

  /** Compares an unconfirmed attempt with the worker's answer to the same request. */
  settle(attempt: LaneAttempt, trusted: CompileAnswer): void {
    const unconfirmed = attempt.unconfirmed
    // A refusal or failure (busy, past the deadline) says nothing about the template.
    if (!unconfirmed || trusted.status !== 200) return
    if (trusted.text === attempt.answer.text && trusted.contentType === attempt.answer.contentType)
      unconfirmed.confirm()
    else {
      unconfirmed.reject()
      this.#rejected++
    }
  }

  stats(): LaneStats {
    return { loaded: this.#loaded, answered: this.#answered, rejected: this.#rejected }
  }
}
