/**
 * The data API's evaluation (GET with DataRequest parameters, POST with a DataRequest body): the
 * stored scope of the path (stored-scope.ts; a system built from git: system-content.ts) plus
 * what the request supplies, evaluated on a worker
 * (evaluation-pool.ts), answered as `{request_id, result, mocks?, nd_builtin_cache?}` (`result` left
 * out when the document is undefined, as OPA answers; 404 for a plain document read). The result's
 * JSON text is written as the worker produced it, so numbers stay as written.
 */
import { notFound } from '../../core/http/index.js'
import { overlay } from '../data-tree.js'
import { parseJsonDocument } from '../json-document.js'
import type { ServiceDeps } from '../types.js'
import { systemOfPath } from '../validation.js'
import { checkRequest, type DataRequest, jsonText } from './data-request.js'
import type { EvaluationTask } from './evaluate-request.js'
import { loadStoredScope } from './stored-scope.js'
import { type SystemScope, systemScopeCache } from './system-scope-cache.js'

/** `data.a.b`, bracketed where a segment is not a name (for messages). */
function documentRef(path: readonly string[]): string {
  return `data${path.map((s) => (/^[A-Za-z_][A-Za-z0-9_]*$/.test(s) ? `.${s}` : `[${JSON.stringify(s)}]`)).join('')}`
}

/** The response body (JSON text) for `request` at `path` (slash path, '' for the root). */
export async function evaluateDataRequest(
  deps: ServiceDeps,
  path: string,
  raw: DataRequest,
  requestId: string,
  options: { undefinedIsNotFound?: boolean } = {},
): Promise<string> {
  const startedAt = Date.now()
  const { request, mocks } = checkRequest(raw)
  const sandbox = request.sandbox === true
  // The workspace's content is read for each request; a system's is cached per content version.
  let scope = await loadStoredScope(deps.store, path, sandbox || systemOfPath(path) !== null)
  let cached: SystemScope | undefined
  if (!sandbox && scope.systemId !== null) {
    cached = await systemScopeCache(deps).get(deps, scope.systemId)
    scope = { ...scope, modules: cached.modules }
  }
  const documentPath = [...(request.query_package ? request.query_package.split('.') : []), ...scope.path]
  const config = deps.evaluator.config
  const task: EvaluationTask = {
    modules: { ...scope.modules, ...request.rego_modules },
    dataText: request.data
      ? jsonText(
          overlay(
            cached ? (parseJsonDocument(cached.dataText) as Record<string, unknown>) : scope.data,
            request.data,
          ),
        )
      : (cached?.dataText ?? jsonText(scope.data)),
    ...(request.input !== undefined ? { inputText: jsonText(request.input) } : {}),
    query:
      request.rego !== undefined
        ? { kind: 'rego', text: request.rego }
        : { kind: 'document', path: documentPath },
    ...(request.jsonpath !== undefined ? { jsonpath: request.jsonpath } : {}),
    mocks,
    ...(request.nd_builtin_cache !== undefined
      ? { ndBuiltinCacheText: jsonText(request.nd_builtin_cache) }
      : {}),
    strict: request.strict === true,
    sandbox,
    replay: request.replay === true,
    // A sandbox reaches nothing outside: only what the request supplies counts.
    allowNet: sandbox ? [] : config.allow_net,
    allowFiles: sandbox ? [] : config.allow_files,
    instructionLimit: config.instruction_limit,
    // The worker keeps the compiled policy of stored content as it is (no supplied modules or
    // data, nothing mocked, no seeded cache: those change what is compiled).
    ...(cached &&
    request.data === undefined &&
    request.rego_modules === undefined &&
    mocks.builtins.length === 0 &&
    request.nd_builtin_cache === undefined
      ? { compiledKey: `${cached.key}|strict=${request.strict === true}` }
      : {}),
  }
  const answer = await deps.evaluator.run(task, startedAt)
  if (!answer.defined && options.undefinedIsNotFound) {
    const where = scope.systemId === null ? '' : ` in system ${scope.systemId}`
    throw notFound(`no data document at ${path}, and ${documentRef(documentPath)} is undefined${where}`)
  }
  const parts = [`"request_id":${JSON.stringify(requestId)}`]
  // Undefined: no `result`, as OPA's data API answers.
  if (answer.defined) parts.push(`"result":${answer.resultText}`)
  if (answer.mocks) parts.push(`"mocks":${JSON.stringify(answer.mocks)}`)
  if (answer.ndBuiltinCacheText !== undefined) parts.push(`"nd_builtin_cache":${answer.ndBuiltinCacheText}`)
  return `{${parts.join(',')}}`
}
