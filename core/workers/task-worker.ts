/**
 * The worker side of a TaskPool (task-pool.ts): call `serveTasks` once in the worker's entry
 * module. Messages are handled one after the other (a state load that awaits finishes before the
 * next task starts), so a task always runs against the latest state sent before it.
 */
import { parentPort } from 'node:worker_threads'
import type { FromWorker, ToWorker } from './protocol.js'

/** What a worker does with the pool's messages. */
export interface TaskHandlers<State, Applied, Task, Result> {
  /** Takes new state (e.g. loads policies); the answer is reported to the pool's `onStateApplied`. */
  state(state: State): Applied | Promise<Applied>
  /** Runs one task; `deadline` (ms since the epoch) is when the pool gives up on it. */
  task(task: Task, deadline: number): Result | Promise<Result>
}

/**
 * Serves the pool's messages on this worker thread.
 * @example serveTasks({ state: (s) => load(s), task: (t, deadline) => run(t, deadline) })
 */
export function serveTasks<State, Applied, Task, Result>(
  handlers: TaskHandlers<State, Applied, Task, Result>,
): void {
  const port = parentPort
  if (!port) throw new Error('serveTasks runs on a worker thread only')
  const post = (message: FromWorker<Applied, Result>) => port.postMessage(message)
  let chain: Promise<void> = Promise.resolve()
  port.on('message', (message: ToWorker<State, Task>) => {
    chain = chain.then(async () => {
      if (message.kind === 'state') {
        const applied = await handlers.state(message.state)
        post({ kind: 'state-applied', generation: message.generation, applied })
        return
      }
      try {
        post({ kind: 'result', id: message.id, result: await handlers.task(message.task, message.deadline) })
      } catch (err) {
        post({ kind: 'failed', id: message.id, message: err instanceof Error ? err.message : String(err) })
      }
    })
    // A state handler reports its own failures in `Applied`; should one throw anyway, the next
    // messages must still be served.
    chain = chain.catch((err: unknown) => {
      process.stderr.write(`task worker: state not applied: ${err instanceof Error ? err.message : err}\n`)
    })
  })
}
