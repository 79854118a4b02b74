/**
 * Entry point of a compile worker thread (started by compile-pool.ts): holds the served bundles'
 * policies (ServedState messages) and answers compile requests against them, one at a time, each
 * under its deadline and work limit: the evaluator stops a query past them with `eval_cancel_error`
 * or `eval_instruction_limit_error`, and `http.send` is aborted. Network-reaching built-ins may only
 * reach `allowNet`.
 */
import { workerData } from 'node:worker_threads'
import { answerCompile, type CompileAnswer, type CompileRequest } from '../../compile/answer.js'
import { EngineBackend } from '../../compile/backend.js'
import { CompileService } from '../../compile/compile.js'
import { serveTasks } from '../../core/workers/task-worker.js'
import type { CompileWorkerData, LoadReport, ServedState } from './protocol.js'
import { ServedPolicies } from './served-policies.js'

const { allowNet, instructionLimit } = workerData as CompileWorkerData

/** The deadline of the request being answered (requests run one at a time on this thread). */
let deadline = 0

function remainingMs(): number {
  return Math.max(1, deadline - Date.now())
}

const engine = new EngineBackend(
  { modules: {} },
  {
    allowNet,
    builtins: () => ({ signal: AbortSignal.timeout(remainingMs()) }),
    budget: () => ({ instructionLimit, timeoutMs: remainingMs() }),
  },
)
const policies = new ServedPolicies(engine)
const service = new CompileService(policies)

serveTasks<ServedState, LoadReport, CompileRequest, CompileAnswer>({
  state: (state) => policies.load(state),
  task: (request, until) => {
    deadline = until
    return answerCompile(service, request)
  },
})
