/**
 * Starts a decision-log worker module (buffer-worker, parse-worker) from this folder; the
 * mechanism (compiled `.js` in a build, esbuild-bundled `.ts` in a checkout) lives in
 * core/workers/start-worker.ts, shared with the relay's compile workers.
 */
import type { Worker, WorkerOptions } from 'node:worker_threads'
import { startModuleWorker as startWorkerBeside } from '../../core/workers/start-worker.js'

/**
 * Starts `name` (e.g. 'buffer-worker') from this folder as a worker thread.
 * @example startModuleWorker('parse-worker', { resourceLimits: { maxYoungGenerationSizeMb: 4 } })
 */
export function startModuleWorker(name: string, options: WorkerOptions = {}): Worker {
  return startWorkerBeside(import.meta.url, name, options)
}
