/**
 * Entry point of a data-evaluation worker thread (started by evaluation-pool.ts): answers one
 * evaluation at a time (evaluate-request.ts), each under its deadline and work limit. Workers hold
 * no state: every task carries its modules and data.
 */
import { serveTasks } from '../../core/workers/task-worker.js'
import { type EvaluationAnswer, type EvaluationTask, evaluateTask } from './evaluate-request.js'

serveTasks<null, null, EvaluationTask, EvaluationAnswer>({
  state: () => null,
  task: (task, deadline) => evaluateTask(task, deadline),
})
