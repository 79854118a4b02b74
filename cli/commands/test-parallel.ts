/**
 * `regent test -p N`: the tests shared out over N threads, the main thread and N-1 worker threads
 * (test-worker.ts), round robin by index so slow tests in one file do not all land on one thread,
 * and the results put back in discovery order, so the report is the one `-p 1` prints (durations
 * aside). Each worker compiles the policies again, as long as a one-thread run of a small suite
 * takes, while the main thread already runs its share: suites under
 * PARALLEL_MIN_TESTS tests, and coverage runs (one tracer over every test), run on the main thread.
 */
import { availableParallelism } from 'node:os'
import type { Worker } from 'node:worker_threads'
import { startModuleWorker } from '../../core/workers/start-worker.js'
import type { TestOptions, TestResult } from './test.js'
import type { TestCase } from './test-discovery.js'
import type { SubResultMap } from './test-sub-results.js'

/** Below this many tests, worker start-up and the second compile cost more than they save. */
export const PARALLEL_MIN_TESTS = 64

/** What a worker is asked to do. */
export interface WorkerTask {
  paths: string[]
  options: Record<string, unknown>
  indices: number[]
  testCount: number
  timeoutMs: number
}

/** What a worker answers, one message per test, then `done` (or `failed`). */
export type WorkerMessage =
  | {
      kind: 'result'
      index: number
      fail: boolean
      error: string | undefined
      errorJson: TestResult['errorJson']
      durationNs: number
      output: string
      trace: string
      failure: TestResult['failure']
      subResults: SubResultMap | undefined
    }
  | { kind: 'done' }
  | { kind: 'failed'; message: string }

/** The threads to use for `flag` (`-p`), `tests` tests, with or without coverage. */
export function parallelism(flag: string, tests: number, coverage: boolean): number {
  const wanted = Math.min(Number(flag) || 1, availableParallelism() * 2, tests)
  if (coverage || tests < PARALLEL_MIN_TESTS) return 1
  return Math.max(1, wanted)
}

/**
 * Runs `tests` on `threads` threads: the main thread (with `runHere`, on the policy it compiled)
 * takes the first share while `threads - 1` workers compile and take the others. Resolves to
 * results in the order of `tests`.
 */
export async function runTestsInWorkers(
  paths: string[],
  options: TestOptions,
  tests: readonly TestCase[],
  threads: number,
  timeoutMs: number,
  runHere: (test: TestCase) => Promise<TestResult>,
): Promise<TestResult[]> {
  const results: Array<TestResult | undefined> = new Array(tests.length)
  const shards: number[][] = Array.from({ length: threads }, () => [])
  for (let i = 0; i < tests.length; i++) shards[i % threads]!.push(i)
  const plainOptions = JSON.parse(JSON.stringify(options)) as Record<string, unknown>
  const workers: Worker[] = []
  const [own = [], ...others] = shards
  const onMainThread = async () => {
    // Yield first so the workers start compiling before this thread gets busy.
    await new Promise((resolve) => setImmediate(resolve))
    for (const index of own) results[index] = await runHere(tests[index]!)
  }
  try {
    await Promise.all([
      onMainThread(),
      ...others.map((indices) => {
        const task: WorkerTask = { paths, options: plainOptions, indices, testCount: tests.length, timeoutMs }
        const worker = startModuleWorker(import.meta.url, 'test-worker', { workerData: task })
        workers.push(worker)
        return new Promise<void>((resolve, reject) => {
          worker.on('message', (message: WorkerMessage) => {
            if (message.kind === 'done') resolve()
            else if (message.kind === 'failed') reject(new Error(`test worker: ${message.message}`))
            else {
              const { kind: _kind, index, ...result } = message
              results[index] = { test: tests[index]!, ...result }
            }
          })
          worker.on('error', reject)
          worker.on('exit', (code) => {
            if (code !== 0) reject(new Error(`test worker exited with code ${code}`))
            resolve() // after `done`, a clean exit changes nothing
          })
        })
      }),
    ])
  } finally {
    await Promise.all(workers.map((w) => w.terminate()))
  }
  return results.map((r, i) => {
    if (!r) throw new Error(`test worker reported no result for ${tests[i]!.query}`)
    return r
  })
}
