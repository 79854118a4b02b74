/**
 * RegoFiltering without holding the event loop: the filter of a run that fetched up to
 * OFF_THREAD_BYTES is evaluated in place (milliseconds); a larger one is written to JSON text in
 * slices that yield (json-text-yielding.ts), evaluated by a worker thread of its own
 * (filter-worker.ts) and answered as the JSON text the store writes, so the main thread neither
 * evaluates nor parses or stringifies the result. Error messages are filter.ts's either way.
 */
import type { Worker } from 'node:worker_threads'
import { prepareModuleWorker, startModuleWorker } from '../../core/workers/start-worker.js'
import { stringifyYielding } from '../json-text-yielding.js'
import { decodeHeapMb, OFF_THREAD_BYTES, workerTurn } from './decode-off-thread.js'
import { type FilterFields, type FilterOutput, filterBudget, runFilter } from './filter.js'
import type { FromFilterWorker, ToFilterWorker } from './filter-protocol.js'
import { RunError } from './types.js'

/** Options of {@link applyFilter}. */
export interface FilterOptions {
  /** Stops a filter in progress (its worker is terminated). */
  signal?: AbortSignal
  /** The run's timeout, which the evaluation gets too (0: none). */
  timeoutMs?: number
  /** Fetched bytes above which the filter leaves the main thread (OFF_THREAD_BYTES; tests set less). */
  offThreadBytes?: number
  /** The worker's heap in MiB (decodeHeapMb of the fetched bytes). */
  maxHeapMb?: number
}

/**
 * `content` (`size` bytes as fetched) run through the configuration's filter; undefined without one.
 * @throws RunError naming file:line of an evaluation error, or saying the query was undefined.
 */
export async function applyFilter(
  config: FilterFields,
  content: unknown,
  size: number,
  options: FilterOptions = {},
): Promise<FilterOutput | undefined> {
  const { policy_filter: policyFilter, policy_query: policyQuery } = config
  if (typeof policyFilter !== 'string' || typeof policyQuery !== 'string') return undefined
  if (size <= (options.offThreadBytes ?? OFF_THREAD_BYTES))
    return runFilter(policyFilter, policyQuery, content, filterBudget(options.timeoutMs ?? 0, true))
  const release = await workerTurn()
  try {
    options.signal?.throwIfAborted()
    const inputText = await stringifyYielding(content)
    options.signal?.throwIfAborted()
    const heapMb = options.maxHeapMb ?? decodeHeapMb(size)
    // Off the event loop in a source checkout: esbuild builds the worker in its own process.
    await prepareModuleWorker(import.meta.url, 'filter-worker')
    const budget = filterBudget(options.timeoutMs ?? 0, false)
    return await filterOnWorker({ policyFilter, policyQuery, inputText, budget }, heapMb, options.signal)
  } catch (err) {
    if (err instanceof RunError) throw err
    if (options.signal?.aborted) throw new RunError('filter error: the filter was stopped')
    throw err
  } finally {
    release()
  }
}

function filterOnWorker(
  task: ToFilterWorker,
  heapMb: number,
  signal: AbortSignal | undefined,
): Promise<FilterOutput> {
  return new Promise((resolve, reject) => {
    const worker: Worker = startModuleWorker(import.meta.url, 'filter-worker', {
      resourceLimits: { maxOldGenerationSizeMb: heapMb },
    })
    let settled = false
    const finish = (outcome: FilterOutput | Error) => {
      if (settled) return
      settled = true
      signal?.removeEventListener('abort', abort)
      void worker.terminate()
      if (outcome instanceof Error) reject(outcome)
      else resolve(outcome)
    }
    const abort = () => finish(new RunError('filter error: the filter was stopped'))
    signal?.addEventListener('abort', abort, { once: true })
    worker.on('message', (message: FromFilterWorker) => {
      if (message.kind === 'done') finish({ text: message.text, items: message.items })
      else finish(new RunError(message.runError ? message.message : `filter error: ${message.message}`))
    })
    worker.on('error', (err) =>
      finish(
        new RunError(
          (err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? `filter error: the filter needs more than ${heapMb} MiB`
            : `filter error: the filter worker failed: ${err.message}`,
        ),
      ),
    )
    worker.on('exit', (code) =>
      finish(new RunError(`filter error: the filter worker stopped (exit ${code})`)),
    )
    worker.postMessage(task)
  })
}
