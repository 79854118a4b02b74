/**
 * Entry point of a data-evaluation worker thread (started by evaluation-pool.ts): answers one
 * evaluation (evaluate-request.ts), decision replay (replay-task.ts) or compile playground request
 * (compile-task.ts) at a time, each under its
 * deadline and work limit. Workers hold no state: every task carries its modules and data.
 */
import { serveTasks } from '../../core/workers/task-worker.js'
import { compileTask } from './compile-task.js'
import { evaluateTask } from './evaluate-request.js'
import { replayTask } from './replay-task.js'
import type { WorkerAnswer, WorkerTask } from './worker-protocol.js'

serveTasks<null, null, WorkerTask, WorkerAnswer>({
  state: () => null,
  task: (message, deadline) => {
    if (message.kind === 'data') return evaluateTask(message.task, deadline)
    if (message.kind === 'replay') return replayTask(message.task, deadline)
    return compileTask(message.task, deadline)
  },
})
