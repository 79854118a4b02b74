/**
 * Live impact analysis (the reference tool's `impact record`): while a recording runs, a sampled
 * share of the decisions the server answers is evaluated again against a candidate bundle, and
 * every difference (or, with `equals`, every sample) is handed to the recording as one row.
 *
 * The served decision is never changed and never waits for the candidate: `observe` only draws
 * the sample and schedules the candidate's evaluation with `setImmediate`, after the primary
 * evaluation has finished. Candidate evaluations in flight and rows not yet read are bounded, so
 * a slow reader or a slow candidate drops samples instead of growing memory or queueing work.
 */
import type { Logger } from 'pino'
import type { PreparedQuery } from '../core/rego/index.js'
import { equalValues, type Value } from '../core/rego/values/index.js'
import { RequestMetrics } from '../core/request-metrics.js'
import { runQuery } from './evaluate.js'
import { jsonText } from './http-io.js'
import { type RefSegment, refQueryText } from './paths.js'
import type { ServerState } from './state.js'
import type { RunServerDeps } from './types.js'

/** One decision the server answered. */
export interface ObservedDecision {
  ref: readonly RefSegment[]
  input: Value | undefined
  result: Value | undefined
  /** Wall time of the primary evaluation, in nanoseconds. */
  evalNs: number
  log: Logger
  /** The server's dependencies (runtime, caches, budget) the candidate is evaluated with. */
  deps: RunServerDeps
}

/** One row of a recording, in the reference tool's field names and order. */
export interface ImpactRow {
  node_id: string
  req_id: number
  decision_id: string
  value_a?: unknown
  value_b?: unknown
  input?: unknown
  path: string
  eval_ns_a: number
  eval_ns_b: number
}

/** How a recording samples and what it reports. */
export interface RecordingOptions {
  /** Share of decisions to sample, 0 to 1. */
  rate: number
  /** Also report samples whose results are equal. */
  equals: boolean
  /** The candidate, compiled. */
  candidate: ServerState
  /** Receives each row as one JSON line (newline included). */
  emit: (line: string) => void
}

/** Candidate evaluations of one recording running at once; more samples are dropped. */
export const MAX_IN_FLIGHT = 32

/** A running recording. */
export interface Recording {
  /** Ends it at once; rows of candidate evaluations still running are discarded. */
  stop(): void
  /** Takes no more samples, lets the running candidate evaluations report (up to `waitMs`), then stops. */
  finish(waitMs?: number): Promise<void>
  /** Samples taken, rows emitted and samples dropped because too many were in flight. */
  stats(): { sampled: number; emitted: number; dropped: number }
}

/** The recordings of one server, fed by every decision it answers. */
export class ImpactRecorder {
  readonly #recordings = new Set<ActiveRecording>()
  #requests = 0

  /** Whether any recording runs (so callers can skip timing work when none does). */
  get active(): boolean {
    return this.#recordings.size > 0
  }

  /** Starts a recording; it runs until `stop()`. */
  start(options: RecordingOptions): Recording {
    const recording = new ActiveRecording(options, () => ++this.#requests)
    this.#recordings.add(recording)
    const stop = () => {
      recording.stopped = true
      this.#recordings.delete(recording)
    }
    return {
      stop,
      finish: async (waitMs = 2000) => {
        this.#recordings.delete(recording) // no more samples
        const deadline = Date.now() + waitMs
        while (recording.inFlight > 0 && Date.now() < deadline) {
          await new Promise((resolve) => setTimeout(resolve, 10))
        }
        stop()
      },
      stats: () => ({ sampled: recording.sampled, emitted: recording.emitted, dropped: recording.dropped }),
    }
  }

  /** Called after each decision is evaluated: draws samples, schedules the candidate. */
  observe(decision: ObservedDecision): void {
    for (const recording of this.#recordings) recording.observe(decision)
  }
}

class ActiveRecording {
  stopped = false
  sampled = 0
  emitted = 0
  dropped = 0
  inFlight = 0

  constructor(
    private readonly options: RecordingOptions,
    private readonly nextRequestId: () => number,
  ) {}

  observe(decision: ObservedDecision): void {
    if (this.stopped || Math.random() >= this.options.rate) return
    if (this.inFlight >= MAX_IN_FLIGHT) {
      this.dropped++
      return
    }
    this.sampled++
    this.inFlight++
    // After the primary answer: the candidate runs on a later turn of the event loop.
    setImmediate(() => {
      this.#evaluate(decision)
        .catch((err: unknown) => decision.log.warn({ err }, 'impact candidate evaluation failed'))
        .finally(() => {
          this.inFlight--
        })
    })
  }

  async #evaluate(decision: ObservedDecision): Promise<void> {
    if (this.stopped) return
    const { deps } = decision
    const candidate = this.options.candidate
    let query: PreparedQuery
    try {
      query = candidate.prepare(refQueryText(decision.ref)).query
    } catch {
      return // The path does not compile against the candidate: nothing to compare.
    }
    const started = process.hrtime.bigint()
    let result: Value | undefined
    try {
      const run = await runQuery(query, {
        policy: candidate.policy,
        input: decision.input,
        strictBuiltinErrors: false,
        metrics: new RequestMetrics(),
        log: decision.log,
        runtime: deps.runtime,
        interQueryCache: deps.interQueryCache,
        budget: deps.budget,
        allowNet: deps.allowNet,
      })
      result = run.results[0]?.expressions[0]?.value
    } catch {
      result = undefined // An error in the candidate reads as undefined, as a failed decision.
    }
    const evalNsB = Number(process.hrtime.bigint() - started)
    if (this.stopped) return
    const same =
      decision.result === undefined || result === undefined
        ? decision.result === result
        : equalValues(decision.result, result)
    if (same && !this.options.equals) return
    this.emitted++
    this.options.emit(
      `${rowText({
        nodeId: deps.instanceId,
        requestId: this.nextRequestId(),
        path: decision.ref.map(String).join('/'),
        input: decision.input,
        valueA: decision.result,
        valueB: result,
        evalNsA: decision.evalNs,
        evalNsB,
      })}\n`,
    )
  }
}

/** One row as a JSON line; values are written exactly (big numbers keep their digits). */
function rowText(row: {
  nodeId: string
  requestId: number
  path: string
  input: Value | undefined
  valueA: Value | undefined
  valueB: Value | undefined
  evalNsA: number
  evalNsB: number
}): string {
  const parts = [
    `"node_id":${JSON.stringify(row.nodeId)}`,
    `"req_id":${row.requestId}`,
    `"decision_id":${JSON.stringify(crypto.randomUUID())}`,
  ]
  if (row.valueA !== undefined) parts.push(`"value_a":${jsonText(row.valueA, false)}`)
  if (row.valueB !== undefined) parts.push(`"value_b":${jsonText(row.valueB, false)}`)
  if (row.input !== undefined) parts.push(`"input":${jsonText(row.input, false)}`)
  parts.push(`"path":${JSON.stringify(row.path)}`, `"eval_ns_a":${row.evalNsA}`, `"eval_ns_b":${row.evalNsB}`)
  return `{${parts.join(',')}}`
}
