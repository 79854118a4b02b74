/**
 * Readiness follows the database's disk: a request that fails because the disk is full (or the
 * file cannot be written) marks the service not ready; a write request that succeeds marks it
 * ready again (WriteHealth also probes by itself meanwhile).
 */
import type { MiddlewareHandler } from 'hono'
import { isCannotWrite, type WriteHealth } from '../core/write-health.js'
import type { ServiceEnv } from './types.js'

const READS = new Set(['GET', 'HEAD', 'OPTIONS'])

/** Middleware that reports each request's write outcome to `health`. */
export function trackWrites(health: WriteHealth): MiddlewareHandler<ServiceEnv> {
  return async (c, next) => {
    await next()
    const error = c.error as (Error & { code?: string }) | undefined
    if (error !== undefined && isCannotWrite(error)) health.failed(error)
    else if (!READS.has(c.req.method) && c.res.status < 400) health.succeeded()
  }
}
