/**
 * The authorization middleware, after `authenticate`: decides every request with the
 * authorization policy, records the decision in `c.var.authorization` (also when it refuses, so
 * activity records refusals) and answers 403 naming the action and resource it lacks.
 */
import type { MiddlewareHandler } from 'hono'
import { forbidden, readStructuredBody } from '../../core/http/index.js'
import type { Principal, ServiceEnv } from '../types.js'
import type { Authorizer, Decision } from './authorizer.js'
import { isSharedSecretRoute, resourceInBody } from './route-table.js'

function describe(principal: Principal): string {
  return `${principal.kind} ${principal.id}`
}

/** How a refusal names the resources (also used by routes refusing on their own check). */
export function resourceText(decision: Pick<Decision, 'resources'>): string {
  return decision.resources
    .map((r) => (r.kind === 'workspace' ? 'the workspace' : `system ${r.id}`))
    .join(', ')
}

/** Middleware deciding each request with `authorizer`. */
export function authorize(authorizer: Authorizer): MiddlewareHandler<ServiceEnv> {
  return async (c, next) => {
    // No principal to decide for: the route checks the request against its shared secret.
    if (isSharedSecretRoute(c.req.method, c.req.path)) return next()
    await authorizer.refresh()
    const principal = c.var.principal
    // NOTE(authz): a role binding's POST names its resource in the body, so the body is read
    // (and parsed) before the decision; a malformed body is answered 400/413/415 here.
    const body = resourceInBody(c.req.method, c.req.path) ? await readStructuredBody(c) : undefined
    const decision = authorizer.decide(principal, {
      method: c.req.method,
      path: c.req.path,
      query: c.req.query(),
      body,
    })
    c.set('authorization', {
      allowed: decision.allowed,
      action: decision.action,
      ...(decision.grant ? { grant: decision.grant } : {}),
    })
    if (!decision.allowed) {
      throw forbidden(
        `${describe(principal)} may not ${decision.action} on ${resourceText(decision)}: no role binding grants it`,
      )
    }
    await next()
  }
}
