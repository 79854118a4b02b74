/**
 * `POST /v1/systems/{system}/compile/{path}`: the compile playground (docs/console.md). The
 * system's modules and data, with the caller's candidate modules over them, are compiled for the
 * rule at `path` exactly as a relay serving that system answers `POST /v1/compile/{path}`: the
 * request body and `Accept` are passed as the relay takes them. The answer wraps the relay's
 * answer (`{status, content_type, body}`), so a compile error is a result here, not a failure of
 * the call. Runs on the evaluation workers, under `service.evaluation`'s deadline and limits.
 */
import { Hono } from 'hono'
import { z } from 'zod'
import { readStructuredBody } from '../../core/http/index.js'
import { jsonText } from '../evaluation/data-request.js'
import { loadSystemContent } from '../evaluation/system-content.js'
import type { ServiceDeps, ServiceEnv } from '../types.js'
import { checkId, validateBody } from '../validation.js'

const playgroundSchema = z.strictObject({
  /** Candidate modules by file name, over the system's own (same name: replaced). */
  modules: z.record(z.string().min(1).max(1024), z.string()).default({}),
  /** The system's modules to leave out. */
  delete_modules: z.array(z.string().min(1).max(1024)).max(1000).default([]),
  /** The `Accept` the relay would be sent (the target: UCAST or a SQL dialect). */
  accept: z.string().max(1024).default('application/json'),
  /** The compile request body the relay would be sent (`input`, `unknowns`, `options`). */
  request: z.record(z.string(), z.unknown()).default({}),
})

const PREFIX = '/v1/systems/'
const MARK = '/compile/'

/** Routes of the compile playground. */
export function compilePlaygroundRoutes(deps: ServiceDeps): Hono<ServiceEnv> {
  const app = new Hono<ServiceEnv>()
  app.post('/v1/systems/:system/compile/*', async (c) => {
    const startedAt = Date.now()
    const systemId = checkId(c.req.param('system'), 'system')
    // The raw path after `compile/`, still percent-encoded, as the relay's route hands it over.
    const pathname = new URL(c.req.url).pathname
    const rulePath = pathname.slice(pathname.indexOf(MARK, PREFIX.length) + MARK.length)
    const body = validateBody(
      playgroundSchema,
      (await readStructuredBody(c)) ?? {},
      'compile playground request',
    )
    const content = await loadSystemContent(deps, systemId)
    const modules = { ...content.modules, ...body.modules }
    for (const name of body.delete_modules) delete modules[name]
    const config = deps.evaluator.config
    const answer = await deps.evaluator.compile(
      {
        modules,
        dataText: jsonText(content.data),
        request: {
          path: rulePath === '' ? undefined : rulePath,
          accept: body.accept,
          contentType: 'application/json',
          bodyText: JSON.stringify(body.request),
          metrics: false,
          pretty: false,
        },
        instructionLimit: config.instruction_limit,
        allowNet: config.allow_net,
      },
      startedAt,
    )
    // The relay's body text is spliced as it is, so numbers in it stay exact.
    const result = `{"status":${answer.status},"content_type":${JSON.stringify(answer.contentType)},"body":${answer.text}}`
    return c.body(`{"request_id":${JSON.stringify(c.var.requestId)},"result":${result}}`, 200, {
      'Content-Type': 'application/json',
    })
  })
  return app
}
