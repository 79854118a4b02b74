/**
 * A worker thread of `regent test -p N` (started by test-parallel.ts): loads and compiles the same
 * policies the main thread did (compiled policies cannot cross threads), finds the same tests in
 * the same order, runs the ones it was given by index and posts each result back.
 */
import { parentPort, workerData } from 'node:worker_threads'
import { re2 } from '../../core/rego/builtins/re2.js'
import { loadTestPolicy, runTest, type TestOptions } from './test.js'
import { discoverTests } from './test-discovery.js'
import type { WorkerMessage, WorkerTask } from './test-parallel.js'

const task = workerData as WorkerTask
const post = (message: WorkerMessage) => parentPort?.postMessage(message)

async function main(): Promise<void> {
  const options = task.options as unknown as TestOptions
  const { policy } = await loadTestPolicy(task.paths, options)
  const tests = discoverTests(policy, options.run ? re2().compile(options.run) : undefined)
  if (tests.length !== task.testCount) {
    throw new Error(`worker found ${tests.length} tests where the main thread found ${task.testCount}`)
  }
  for (const index of task.indices) {
    const r = await runTest(policy, tests[index]!, task.timeoutMs, options, undefined)
    post({
      kind: 'result',
      index,
      fail: r.fail,
      error: r.error,
      errorJson: r.errorJson,
      durationNs: r.durationNs,
      output: r.output,
      trace: r.trace,
      failure: r.failure,
      subResults: r.subResults,
    })
  }
  post({ kind: 'done' })
}

// Top-level await is not available: in a source checkout the worker is bundled as CommonJS.
main().catch((err: unknown) => {
  post({ kind: 'failed', message: err instanceof Error ? err.message : String(err) })
})
