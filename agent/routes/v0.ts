/**
 * The v0 Data API and the default decision: `POST /v0/data/{path}` and `POST /` take the raw input
 * document as the body (JSON or YAML; an empty body is input `null`, as OPA decodes it) and answer
 * the raw value of the document, or 404 `undefined_document` when it is undefined. `POST /`
 * evaluates the default decision (`system/main` unless `--set default_decision=…`).
 */
import { type Context, Hono } from 'hono'
import { type AppEnv, HttpError } from '../../core/http/index.js'
import type { Value } from '../../core/rego/values/index.js'
import { evaluateDocument, hasRulesFor } from '../decision.js'
import { logDecision } from '../decision-logging.js'
import { malformed } from '../evaluate.js'
import { boolParam, isYamlBody, jsonText, parseDocumentText, RequestMetrics, readText } from '../http-io.js'
import { type RefSegment, rawPathAfter, refDisplay, refFromUrlPath } from '../paths.js'
import type { RunServerDeps } from '../types.js'

const PREFIX = '/v0/data'

/** The v0 routes and `POST /`. */
export function v0Routes(deps: RunServerDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>()

  const decide = async (c: Context<AppEnv>, ref: RefSegment[]): Promise<Response> => {
    const text = await readText(c, deps.limits, 'unexpected parse error for input: ')
    let input: Value | undefined
    try {
      input = parseDocumentText(text, isYamlBody(c)) ?? null
    } catch (err) {
      throw malformed('unexpected parse error for input: body contains malformed input document', err)
    }
    const metrics = new RequestMetrics()
    const result = await evaluateDocument(c, deps, { ref, input, strictBuiltinErrors: false, metrics })
    await logDecision(c, deps, { ref, input, result, metrics })
    if (result === undefined) {
      const what = hasRulesFor(deps, ref) ? 'document undefined' : 'document missing'
      throw new HttpError(404, 'undefined_document', `${what}: ${refDisplay(ref)}`)
    }
    return c.body(jsonText(result, boolParam(c, 'pretty')), 200, { 'Content-Type': 'application/json' })
  }

  const v0 = (c: Context<AppEnv>) => decide(c, refFromUrlPath(rawPathAfter(c.req.url, PREFIX)))
  app.post(PREFIX, v0)
  app.post(`${PREFIX}/*`, v0)
  app.post('/', (c) => decide(c, refFromUrlPath(deps.defaultDecision)))
  return app
}
