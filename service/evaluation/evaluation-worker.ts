/**
 * Entry point of a data-evaluation worker thread (started by evaluation-pool.ts): answers one
 * evaluation (evaluate-request.ts) or decision replay (replay-task.ts) at a time, each under its
 * deadline and work limit. Workers hold no state: every task carries its modules and data.
 */
import { serveTasks } from '../../core/workers/task-worker.js'
import { evaluateTask } from './evaluate-request.js'
import { replayTask } from './replay-task.js'
import type { WorkerAnswer, WorkerTask } from './worker-protocol.js'

serveTasks<null, null, WorkerTask, WorkerAnswer>({
  state: () => null,
  task: (message, deadline) =>
    message.kind === 'data' ? evaluateTask(message.task, deadline) : replayTask(message.task, deadline),
})
