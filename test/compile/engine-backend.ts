/**
 * The real compile backend for tests: regent's engine over Rego sources (file name → text), recording
 * the partial evaluation requests it receives.
 */
import { EngineBackend } from '../../compile/backend.js'
import type { PartialEvaluationRequest } from '../../compile/types.js'
import { parseModule } from '../../core/rego/index.js'

/** An `EngineBackend` over `sources`, with the requests it was asked to partially evaluate. */
export function engineBackend(
  sources: Record<string, string>,
  data: unknown = {},
): EngineBackend & { calls: PartialEvaluationRequest[] } {
  const modules = new Map(
    Object.entries(sources).map(([file, text]) => [file, parseModule(text, { file })] as const),
  )
  const backend = new EngineBackend({ modules, data }) as EngineBackend & {
    calls: PartialEvaluationRequest[]
  }
  const calls: PartialEvaluationRequest[] = []
  const partial = backend.partialEvaluate.bind(backend)
  backend.calls = calls
  backend.partialEvaluate = (request) => {
    calls.push(request)
    return partial(request)
  }
  return backend
}
