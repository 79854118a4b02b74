/**
 * The Data API's reads: `GET /v1/data/{path}` (input in `?input=`) and `POST /v1/data/{path}`
 * (input in the body as `{"input": …}`). The answer is `{"result": …}`, or `{}` when the document
 * is undefined; `?metrics` adds timers, `?provenance` the version and bundle revisions, and a POST
 * without an `input` key gets OPA's `api_usage_warning`.
 */
import { type Context, Hono } from 'hono'
import type { AppEnv } from '../../core/http/index.js'
import { isObject, type Value } from '../../core/rego/values/index.js'
import { evaluateDocument, provenance } from '../decision.js'
import { logDecision } from '../decision-logging.js'
import { malformed } from '../evaluate.js'
import {
  boolParam,
  isYamlBody,
  jsonResponse,
  parseDocumentText,
  RequestMetrics,
  readText,
  refuseExplain,
} from '../http-io.js'
import { rawPathAfter, refFromUrlPath } from '../paths.js'
import type { RunServerDeps } from '../types.js'

const PREFIX = '/v1/data'

const INPUT_MISSING_WARNING = {
  code: 'api_usage_warning',
  message: "'input' key missing from the request",
}

/** The read routes of the Data API. */
export function dataReadRoutes(deps: RunServerDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>()

  const answer = async (
    c: Context<AppEnv>,
    readInput: (metrics: RequestMetrics) => Promise<{ input: Value | undefined; warn: boolean }>,
  ) => {
    const metrics = new RequestMetrics()
    metrics.start('timer_server_handler_ns')
    refuseExplain(c)
    const ref = refFromUrlPath(rawPathAfter(c.req.url, PREFIX))
    metrics.start('timer_rego_input_parse_ns')
    const { input, warn } = await readInput(metrics)
    metrics.stop('timer_rego_input_parse_ns')
    const result = await evaluateDocument(c, deps, {
      ref,
      input,
      strictBuiltinErrors: boolParam(c, 'strict-builtin-errors'),
      metrics,
    })
    metrics.stop('timer_server_handler_ns')
    const decisionId = await logDecision(c, deps, { ref, input, result, metrics })
    const wantMetrics = boolParam(c, 'metrics') || boolParam(c, 'instrument')
    return jsonResponse(
      c,
      {
        decision_id: decisionId,
        result,
        warning: warn ? INPUT_MISSING_WARNING : undefined,
        metrics: wantMetrics ? metrics.all() : undefined,
        provenance: boolParam(c, 'provenance') ? provenance(deps) : undefined,
      },
      boolParam(c, 'pretty'),
    )
  }

  const get = (c: Context<AppEnv>) =>
    answer(c, async () => {
      const given = c.req.queries('input')
      const last = given?.[given.length - 1]
      if (last === undefined) return { input: undefined, warn: false }
      try {
        return { input: parseDocumentText(last, false) ?? null, warn: false }
      } catch (err) {
        throw malformed('parameter contains malformed input document', err)
      }
    })

  const post = (c: Context<AppEnv>) =>
    answer(c, async () => {
      const text = await readText(c, deps.limits)
      let body: Value | undefined
      try {
        body = parseDocumentText(text, isYamlBody(c))
      } catch (err) {
        throw malformed('body contains malformed input document', err)
      }
      if (body === undefined || body === null) return { input: undefined, warn: true }
      if (!isObject(body)) {
        throw malformed('body contains malformed input document', 'expected an object with an "input" key')
      }
      const input = body.get('input')
      // A JSON null input is no input, as Go decodes `"input": null` into a nil pointer.
      return input === undefined || input === null ? { input: undefined, warn: true } : { input, warn: false }
    })

  app.get(PREFIX, get)
  app.get(`${PREFIX}/*`, get)
  app.post(PREFIX, post)
  app.post(`${PREFIX}/*`, post)
  return app
}
