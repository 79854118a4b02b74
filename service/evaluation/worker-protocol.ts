/** What the evaluation pool sends its workers, and what they answer. */
import type { EvaluationAnswer, EvaluationTask } from './evaluate-request.js'
import type { ReplayAnswer, ReplayTask } from './replay-task.js'

export type WorkerTask = { kind: 'data'; task: EvaluationTask } | { kind: 'replay'; task: ReplayTask }
export type WorkerAnswer = EvaluationAnswer | ReplayAnswer
