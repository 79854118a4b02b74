/**
 * Agent-facing authentication, off by default (agents share the pod's loopback, as with the
 * Styra Local Plane). `bearer` checks `Authorization: Bearer <token>` against the configured
 * tokens (a `token_path` file is re-read at most once a second, so rotation needs no restart);
 * `mtls` is enforced by the TLS server itself (relay/serve-tls.ts), before any route runs.
 */
import { timingSafeEqual } from 'node:crypto'
import { readFileSync } from 'node:fs'
import type { MiddlewareHandler } from 'hono'
import { type AppEnv, unauthorized } from '../../core/http/index.js'
import type { AgentAuthConfig } from '../config.js'

/** Middleware for the agent routes under `/v1`; a no-op unless bearer auth is configured. */
export function agentAuth(config: AgentAuthConfig): MiddlewareHandler<AppEnv> {
  if (config.type !== 'bearer') return async (_c, next) => next()
  const tokens = bearerTokens(config)
  return async (c, next) => {
    const header = c.req.header('Authorization') ?? ''
    const match = /^Bearer\s+(.+)$/i.exec(header.trim())
    if (!match || !tokens().some((t) => safeEqual(t, match[1]!))) {
      throw unauthorized('missing or invalid bearer token (relay.agent_auth is bearer)')
    }
    await next()
  }
}

function bearerTokens(config: Extract<AgentAuthConfig, { type: 'bearer' }>): () => string[] {
  let cached: string[] = []
  let readAt = 0
  return () => {
    if (config.token_path === undefined) return config.tokens
    if (Date.now() - readAt > 1000) {
      readAt = Date.now()
      try {
        cached = readFileSync(config.token_path, 'utf8')
          .split(/\r?\n/)
          .map((t) => t.trim())
          .filter(Boolean)
      } catch {
        // An unreadable file admits nobody rather than everybody.
        cached = []
      }
    }
    return [...config.tokens, ...cached]
  }
}

function safeEqual(a: string, b: string): boolean {
  const x = Buffer.from(a)
  const y = Buffer.from(b)
  return x.length === y.length && timingSafeEqual(x, y)
}
