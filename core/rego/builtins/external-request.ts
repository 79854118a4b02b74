/**
 * What the built-ins that query outside data stores (sql.send, redis.query, and the declared-only
 * dynamodb.*, mongodb.*, neo4j.query, vault.send) share, as EOPA defines them: one request object
 * with required fields, `raise_error` (default true: a failure stops the query; false: the answer
 * is `{"error": {"code", "message"}}` instead), and the query's abort signal.
 */
import type { ObjectValue, Value } from '../values/index.js'
import { isArray, ObjectValue as Obj } from '../values/index.js'
import type { BuiltinContext } from './context.js'
import { BuiltinError, OperandError } from './errors.js'
import { raiseErrorOption } from './http-options.js'

/** A required string field of the request object (argument 1). */
export function requiredString(req: ObjectValue, key: string): string {
  const v = req.get(key)
  if (v === undefined) throw new OperandError(1, `missing required request parameter ${JSON.stringify(key)}`)
  if (typeof v !== 'string')
    throw new OperandError(1, `request parameter ${JSON.stringify(key)} must be a string`)
  return v
}

/** An optional array field (`args`), empty when absent. */
export function optionalArray(req: ObjectValue, key: string): readonly Value[] {
  const v = req.get(key)
  if (v === undefined) return []
  if (!isArray(v)) throw new OperandError(1, `request parameter ${JSON.stringify(key)} must be an array`)
  return v
}

/**
 * Runs `call` and answers its value; a failure is raised, or with `raise_error: false` answered
 * as `{"error": {"code": "<name>_error", "message"}}`. Budget errors (cancel, work limit) always stop
 * the query.
 */
export async function answerOrError(
  req: ObjectValue,
  errorCode: string,
  call: () => Promise<Value>,
): Promise<Value> {
  const raise = raiseErrorOption(req)
  try {
    return await call()
  } catch (err) {
    if (raise || err instanceof OperandError) throw err
    if (!(err instanceof BuiltinError)) throw err
    return Obj.fromRecord({ error: Obj.fromRecord({ code: errorCode, message: err.message }) })
  }
}

/**
 * Resolves as `work` does, or rejects when the query is cancelled (its deadline passed) first:
 * a client that cannot be interrupted keeps running in the background, the query does not wait.
 */
export function withinQuery<T>(ctx: BuiltinContext, work: Promise<T>): Promise<T> {
  const signal = ctx.signal
  if (!signal) return work
  if (signal.aborted) return Promise.reject(new BuiltinError('the query was cancelled'))
  return new Promise<T>((resolve, reject) => {
    const abort = () => reject(new BuiltinError('the query was cancelled'))
    signal.addEventListener('abort', abort, { once: true })
    work.then(
      (v) => {
        signal.removeEventListener('abort', abort)
        resolve(v)
      },
      (e: unknown) => {
        signal.removeEventListener('abort', abort)
        reject(e)
      },
    )
  })
}

/** A failure of the outside store, as a built-in error whose message names the call. */
export function storeFailure(what: string, err: unknown): BuiltinError {
  if (err instanceof BuiltinError) return err
  const message = err instanceof Error ? err.message : String(err)
  return new BuiltinError(`${what}: ${message}`)
}
