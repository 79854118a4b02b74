/** What the evaluation pool sends its workers, and what they answer. */
import type { CompileTask, CompileTaskAnswer } from './compile-task.js'
import type { EvaluationAnswer, EvaluationTask } from './evaluate-request.js'
import type { ReplayAnswer, ReplayTask } from './replay-task.js'

export type WorkerTask =
  | { kind: 'data'; task: EvaluationTask }
  | { kind: 'replay'; task: ReplayTask }
  | { kind: 'compile'; task: CompileTask }
export type WorkerAnswer = EvaluationAnswer | ReplayAnswer | CompileTaskAnswer
