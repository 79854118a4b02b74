/**
 * The Data API's writes to the base document: `PUT /v1/data/{path}` (create or overwrite, parents
 * created; `If-None-Match: *` answers 304 when something is there), `PATCH /v1/data/{path}` (JSON
 * Patch with `add`, `remove` and `replace` below the path) and `DELETE /v1/data/{path}`. Success is
 * 204 (200 with `{"metrics": …}` when asked). Writes under a bundle's roots, or where a rule
 * produces a document, are 400.
 */
import { type Context, Hono } from 'hono'
import { type AppEnv, badRequest } from '../../core/http/index.js'
import { isArray, isObject, type Value } from '../../core/rego/values/index.js'
import type { DataWrite } from '../data-tree.js'
import { storageFailure } from '../evaluate.js'
import { boolParam, jsonResponse, parseDocumentText, RequestMetrics, readText } from '../http-io.js'
import { patchPath, rawPathAfter, storagePathFromUrl } from '../paths.js'
import type { RunServerDeps } from '../types.js'

const PREFIX = '/v1/data'
const PATCH_OPS = new Set(['add', 'remove', 'replace'])

/** The write routes of the Data API. */
export function dataWriteRoutes(deps: RunServerDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>()

  /** Runs a write, mapping storage errors, and answers 204 (or the metrics). */
  const write = async (c: Context<AppEnv>, f: (metrics: RequestMetrics) => Promise<boolean>) => {
    const metrics = new RequestMetrics()
    metrics.start('timer_server_handler_ns')
    let changed: boolean
    try {
      changed = await f(metrics)
    } catch (err) {
      throw storageFailure(err)
    }
    metrics.stop('timer_server_handler_ns')
    if (!changed) return c.body(null, 304)
    if (boolParam(c, 'metrics')) return jsonResponse(c, { metrics: metrics.all() }, false)
    return c.body(null, 204)
  }

  const readJson = async (c: Context<AppEnv>, metrics: RequestMetrics): Promise<Value> => {
    metrics.start('timer_rego_input_parse_ns')
    const text = await readText(c, deps.limits)
    let value: Value | undefined
    try {
      value = parseDocumentText(text, false)
    } catch (err) {
      throw badRequest(`body is not valid JSON: ${(err as Error).message}`)
    }
    if (value === undefined) throw badRequest('body is empty: expected a JSON document')
    metrics.stop('timer_rego_input_parse_ns')
    return value
  }

  const put = (c: Context<AppEnv>) =>
    write(c, async (metrics) => {
      const value = await readJson(c, metrics)
      const path = storagePathFromUrl(rawPathAfter(c.req.url, PREFIX))
      return deps.state.putData(path, value, c.req.header('If-None-Match')?.trim() === '*')
    })

  const patch = (c: Context<AppEnv>) =>
    write(c, async (metrics) => {
      const body = await readJson(c, metrics)
      const root = storagePathFromUrl(rawPathAfter(c.req.url, PREFIX))
      deps.state.writeData(patchOperations(body, root))
      return true
    })

  const remove = (c: Context<AppEnv>) =>
    write(c, async () => {
      deps.state.deleteData(storagePathFromUrl(rawPathAfter(c.req.url, PREFIX)))
      return true
    })

  app.put(PREFIX, put)
  app.put(`${PREFIX}/*`, put)
  app.patch(PREFIX, patch)
  app.patch(`${PREFIX}/*`, patch)
  app.delete(`${PREFIX}/*`, remove)
  return app
}

/**
 * The writes of a JSON Patch document (an array of `{op, path, value}`) below `root`.
 * @throws HttpError 400 naming the operation or path at fault.
 */
export function patchOperations(body: Value, root: readonly string[]): DataWrite[] {
  if (!isArray(body)) throw badRequest('body must be a JSON array of patch operations')
  return body.map((item, i) => {
    if (!isObject(item)) throw badRequest(`patch operation ${i} must be an object`)
    const op = item.get('op')
    if (typeof op !== 'string' || !PATCH_OPS.has(op))
      throw badRequest(`bad patch operation: ${String(op ?? '')}`)
    const pointer = item.get('path') ?? ''
    if (typeof pointer !== 'string') throw badRequest(`bad patch path: ${String(pointer)}`)
    const write: DataWrite = { op: op as DataWrite['op'], path: patchPath(root, pointer) }
    if (op !== 'remove') write.value = item.get('value') ?? null
    return write
  })
}
