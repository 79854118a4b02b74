/**
 * The compile playground on the evaluation worker: a system's modules (with the caller's
 * candidate modules over them) and data given to the compile endpoint's own pipeline
 * (compile/), so the answer is the one a relay serving that content would give: the same
 * UCAST or SQL, the same fragment errors with their locations, the same status.
 */
import { answerCompile, type CompileAnswer, type CompileRequest, errorAnswer } from '../../compile/answer.js'
import { EngineBackend } from '../../compile/backend.js'
import { CompileService } from '../../compile/compile.js'
import { invalidParameter } from '../../compile/errors.js'
import { RegoErrors } from '../../core/rego/errors.js'
import { type Module, parseModuleWithErrors } from '../../core/rego/index.js'
import { parseJSON } from '../../core/rego/values/index.js'

export interface CompileTask {
  modules: Record<string, string>
  dataText: string
  request: CompileRequest
  instructionLimit: number
  allowNet: string[]
}

/** Answers are plain data: the compile answer's status, media type and body text. */
export type CompileTaskAnswer = { ok: true; answer: CompileAnswer }

/** Compiles `task.request` over the task's content until `deadline` (ms since the epoch). */
export async function compileTask(task: CompileTask, deadline: number): Promise<CompileTaskAnswer> {
  const modules = new Map<string, Module>()
  const errors = []
  for (const [file, source] of Object.entries(task.modules)) {
    const parsed = parseModuleWithErrors(source, { file })
    errors.push(...parsed.errors)
    if (parsed.module) modules.set(file, parsed.module)
  }
  if (errors.length > 0) {
    const failure = invalidParameter(
      'error(s) occurred while compiling module(s)',
      new RegoErrors(errors).toJSON(),
    )
    return { ok: true, answer: errorAnswer(failure.status, failure.toJSON()) }
  }
  const remainingMs = () => Math.max(1, deadline - Date.now())
  const engine = new EngineBackend(
    { modules, data: parseJSON(task.dataText) },
    {
      allowNet: task.allowNet,
      builtins: () => ({ signal: AbortSignal.timeout(remainingMs()) }),
      budget: () => ({ instructionLimit: task.instructionLimit, timeoutMs: remainingMs() }),
    },
  )
  return { ok: true, answer: await answerCompile(new CompileService(engine), task.request) }
}
