/**
 * Running a query for a request, and the errors OPA's server answers when that fails: a query that
 * does not parse or compile is 400 `invalid_parameter` with the AST errors; an evaluation error is
 * 500 `internal_error` "error(s) occurred while evaluating query" with the `eval_*` error in
 * `errors` (OPA's `writer.ErrorAuto` for a `topdown.Error`).
 */
import type { Logger } from 'pino'
import { badRequest, HttpError } from '../core/http/index.js'
import { createBuiltinContext, type InterQueryCache } from '../core/rego/builtins/context.js'
import { isEvalError } from '../core/rego/eval/errors.js'
import {
  type EvaluationBudget,
  type Policy,
  type PreparedQuery,
  type QueryRun,
  RegoError,
  RegoErrors,
} from '../core/rego/index.js'
import type { Value } from '../core/rego/values/index.js'
import { StorageError } from './data-tree.js'
import type { RequestMetrics } from './http-io.js'

/** OPA's messages for the stages a query can fail in. */
export const MSG_PARSE_QUERY = 'error(s) occurred while parsing query'
export const MSG_COMPILE_QUERY = 'error(s) occurred while compiling query'
export const MSG_COMPILE_MODULES = 'error(s) occurred while compiling module(s)'
export const MSG_EVALUATION = 'error(s) occurred while evaluating query'

/** What one evaluation needs besides the query. */
export interface EvaluationContext {
  policy: Policy
  input: Value | undefined
  strictBuiltinErrors: boolean
  metrics: RequestMetrics
  log: Logger
  /** `opa.runtime()`. */
  runtime: Value
  /** Shared http.send cache across requests (OPA's inter-query cache). */
  interQueryCache: InterQueryCache
  /** Timeout and work limit of the query; past either it fails with the budget's `eval_*` error. */
  budget: EvaluationBudget
  /** Hosts http.send may reach (capabilities `allow_net`); undefined: every host. */
  allowNet: readonly string[] | undefined
}

/**
 * Evaluates a prepared query. `print()` output goes to the request's log at info level, as OPA's
 * server logs it. Evaluation errors become the 500 described above.
 */
export async function runQuery(query: PreparedQuery, context: EvaluationContext): Promise<QueryRun> {
  const { policy, strictBuiltinErrors, metrics, log } = context
  const ctx = createBuiltinContext({
    strictBuiltinErrors,
    print: (message, location) =>
      log.info(location ? { line: `${location.file}:${location.row}` } : {}, message),
    regoMetadata: policy.regoMetadata,
    parseModule: policy.parseModule,
    runtime: context.runtime,
    interQueryCache: context.interQueryCache,
    ...(context.allowNet !== undefined ? { allowNet: context.allowNet } : {}),
  })
  metrics.start('timer_rego_query_eval_ns')
  try {
    return await query.eval({
      ctx,
      strictBuiltinErrors,
      budget: context.budget,
      ...(context.input !== undefined ? { input: context.input } : {}),
    })
  } catch (err) {
    throw evaluationFailure(err)
  } finally {
    metrics.stop('timer_rego_query_eval_ns')
  }
}

/** The HTTP error for a failed evaluation (anything that is not an `EvalError` is rethrown as is). */
export function evaluationFailure(err: unknown): unknown {
  if (isEvalError(err)) return new HttpError(500, 'internal_error', MSG_EVALUATION, [err.toJSON()])
  return err
}

/**
 * The 400 for static errors (parse or compile), with each error in OPA's JSON shape; anything else
 * is returned unchanged for the caller to rethrow.
 * @example throw staticFailure(err, MSG_PARSE_QUERY)
 */
export function staticFailure(err: unknown, message: string, code = 'invalid_parameter'): unknown {
  if (err instanceof RegoErrors) return new HttpError(400, code, message, err.toJSON())
  if (err instanceof RegoError) return new HttpError(400, code, message, [err.toJSON()])
  return err
}

/** A 400 whose message starts with OPA's wording for the body (`body contains malformed input document: …`). */
export function malformed(prefix: string, err: unknown): HttpError {
  // A body too large to read (413) is not malformed.
  if (err instanceof HttpError && err.status === 413) return err
  return badRequest(`${prefix}: ${err instanceof Error ? err.message : String(err)}`)
}

/** A bounded in-memory cache for `http.send` responses shared across requests. */
export function createInterQueryCache(maxEntries = 1000): InterQueryCache {
  const entries = new Map<string, { value: Value; expiresAt: number }>()
  return {
    get: (key) => entries.get(key),
    set: (key, entry) => {
      entries.delete(key)
      if (entries.size >= maxEntries) {
        const oldest = entries.keys().next().value
        if (oldest !== undefined) entries.delete(oldest)
      }
      entries.set(key, entry)
    },
    delete: (key) => {
      entries.delete(key)
    },
  }
}

/** The HTTP error for a storage failure, as OPA's `ErrorAuto` maps them (a write conflict is a 404). */
export function storageFailure(err: unknown): unknown {
  if (!(err instanceof StorageError)) return err
  switch (err.kind) {
    case 'not_found':
      return new HttpError(404, 'resource_not_found', err.message)
    case 'write_conflict':
      return new HttpError(404, 'resource_conflict', err.message)
    default:
      return badRequest(err.message)
  }
}
