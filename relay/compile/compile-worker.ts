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
/** Aborts the running request's built-ins (http.send) at its deadline, or when it is answered. */
let cancel: AbortController | undefined
let cancelTimer: NodeJS.Timeout | undefined
// The reason AbortSignal.timeout gives (http.send names a TimeoutError), made once: a
// DOMException per request was ~5% of this thread's time (it captures a stack).
const TIMED_OUT = new DOMException('The operation was aborted due to timeout', 'TimeoutError')

function remainingMs(): number {
  return Math.max(1, deadline - Date.now())
}

/**
 * The running request's signal. Not AbortSignal.timeout: that costs ~9 µs per request here and
 * its timer and signal live until the deadline (seconds after the answer), thousands of them
 * under load for the collector to trace; this timer is cleared when the request is answered.
 */
function requestSignal(): AbortSignal {
  if (!cancel) {
    const controller = new AbortController()
    cancel = controller
    cancelTimer = setTimeout(() => controller.abort(TIMED_OUT), remainingMs())
  }
  return cancel.signal
}

/** The request is answered: whatever of it still runs in the background (http.send) is moot. */
function requestDone(): void {
  clearTimeout(cancelTimer)
  cancel?.abort(TIMED_OUT)
  cancel = undefined
  cancelTimer = undefined
}

const engine = new EngineBackend(
  { modules: {} },
  {
    allowNet,
    builtins: () => ({ signal: requestSignal() }),
    budget: () => ({ instructionLimit, timeoutMs: remainingMs() }),
  },
)
const policies = new ServedPolicies(engine)
const service = new CompileService(policies)

serveTasks<ServedState, LoadReport, CompileRequest, CompileAnswer>({
  state: (state) => policies.load(state),
  task: async (request, until) => {
    deadline = until
    try {
      return await answerCompile(service, request)
    } finally {
      requestDone()
    }
  },
})
