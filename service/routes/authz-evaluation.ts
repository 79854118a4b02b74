/**
 * `POST /v1/authz/evaluation`: the permission check. Each item names an operation (HTTP method)
 * and a path; the answer is what enforcement would decide for the caller on that request:
 * the same route table and policy (service/authz/), and the same `allow_path_patterns`.
 */
import { Hono } from 'hono'
import { z } from 'zod'
import { readStructuredBody } from '../../core/http/index.js'
import { pathAllowed } from '../auth.js'
import { narrowerAdmits } from '../authz/narrower.js'
import type { ServiceDeps, ServiceEnv } from '../types.js'
import { validateBody } from '../validation.js'

const checkSchema = z
  .array(
    z.strictObject({
      check_option: z.string().default(''),
      operation: z.string().min(1),
      action: z.string().default(''),
      path: z.string().min(1),
      body: z.record(z.string(), z.unknown()).optional(),
    }),
  )
  .max(1000)

const METHOD = /^[A-Za-z]+$/

/** Route of `POST /v1/authz/evaluation`. */
export function authzEvaluationRoutes(deps: ServiceDeps): Hono<ServiceEnv> {
  const { store, authorizer } = deps
  const app = new Hono<ServiceEnv>()

  app.post('/v1/authz/evaluation', async (c) => {
    const checks = validateBody(checkSchema, await readStructuredBody(c), 'permission check')
    const principal = c.var.principal
    const token = principal.kind === 'token' ? await store.tokens.get(principal.id) : undefined
    await authorizer.refresh()
    const result = checks.map((check) => {
      const out = {
        check_option: check.check_option,
        operation: check.operation,
        path: check.path,
        ...(check.body !== undefined ? { body: check.body } : {}),
      }
      try {
        if (!METHOD.test(check.operation)) return { ...out, allowed: false, eval_error: true }
        const url = new URL(check.path, 'http://check.invalid')
        const path = url.pathname
        if (token && !pathAllowed(token, path)) return { ...out, allowed: false, eval_error: false }
        const decision = authorizer.decide(principal, {
          method: check.operation.toUpperCase(),
          path,
          query: Object.fromEntries(url.searchParams),
          body: check.body ?? {},
        })
        const allowed = decision.allowed && narrowerAdmits(decision.action, check.body ?? {})
        return { ...out, allowed, eval_error: false }
      } catch {
        return { ...out, allowed: false, eval_error: true }
      }
    })
    return c.json({ request_id: c.var.requestId, result })
  })
  return app
}
