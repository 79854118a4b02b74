/**
 * `/v1/tokens`: API tokens. The secret is returned once (on create, or on update with
 * `regenerate: true`); only its hash is kept. `If-None-Match: *` makes PUT create-only (409
 * when an unexpired token has the id). New tokens carry no role until bound to one.
 */
import { Hono } from 'hono'
import { z } from 'zod'
import { badRequest, conflict, notFound, readStructuredBody } from '../../core/http/index.js'
import { type Actor, createdBy, modifiedBy, objectMeta, type TokenRow } from '../../store/service/index.js'
import { checkPathPattern, requireAdmin } from '../auth.js'
import { parseGoDuration } from '../go-duration.js'
import {
  DEFAULT_TOKEN_TTL_MS,
  deriveAgentSecret,
  generateSecret,
  hashSecret,
  WORKSPACE_ADMINISTRATOR,
} from '../token-secrets.js'
import type { ServiceDeps, ServiceEnv } from '../types.js'
import { checkId, envelope, validateBody } from '../validation.js'

const tokenRequestSchema = z.strictObject({
  id: z.string().optional(),
  description: z.string().max(4096).default(''),
  ttl: z.string().default(''),
  allow_path_patterns: z.array(z.string().min(1)).max(100).default([]),
  regenerate: z.boolean().default(false),
})

/** The API shape of a token (`tokens.v1.Token`), without its secret. */
export function tokenView(row: TokenRow) {
  return {
    id: row.id,
    description: row.description,
    ttl: row.ttl,
    expires: row.expires_at,
    allow_path_patterns: JSON.parse(row.allow_path_patterns) as string[],
    metadata: objectMeta(row),
  }
}

/** Milliseconds a TTL string stands for. @throws HttpError 400 when it is not a positive Go duration. */
function ttlMs(ttl: string): number {
  if (ttl === '') return DEFAULT_TOKEN_TTL_MS
  const ms = parseGoDuration(ttl)
  if (ms === undefined || ms <= 0)
    throw badRequest(`invalid ttl "${ttl}": expected a positive duration such as 720h or 30m`)
  return ms
}

/** Routes of `/v1/tokens`. */
export function tokenRoutes(deps: ServiceDeps): Hono<ServiceEnv> {
  const { store } = deps
  const app = new Hono<ServiceEnv>()
  app.use('/v1/tokens', requireAdmin())
  app.use('/v1/tokens/*', requireAdmin())

  app.get('/v1/tokens', async (c) => envelope(c, (await store.tokens.list()).map(tokenView)))

  app.get('/v1/tokens/:id', async (c) => {
    const id = checkId(c.req.param('id'), 'token id')
    const row = await store.tokens.get(id)
    if (!row) throw notFound(`token ${id} not found`)
    return envelope(c, tokenView(row))
  })

  app.put('/v1/tokens/:id', async (c) => {
    const id = checkId(c.req.param('id'), 'token id')
    const body = validateBody(tokenRequestSchema, await readStructuredBody(c), 'token')
    if (body.id !== undefined && body.id !== id)
      throw badRequest(`id: "${body.id}" does not match the path's token id "${id}"`)
    body.allow_path_patterns.forEach((pattern, i) => {
      const problem = checkPathPattern(pattern)
      if (problem) throw badRequest(`allow_path_patterns.${i}: invalid regular expression: ${problem}`)
    })
    const lifetime = ttlMs(body.ttl)
    const createOnly = c.req.header('If-None-Match')?.trim() === '*'
    const actor: Actor = { by: c.var.principal.id, through: 'api' }
    const now = new Date()

    const result = await store.transaction(async (tx) => {
      const existing = await tx.tokens.get(id)
      const live = existing !== undefined && Date.parse(existing.expires_at) > now.getTime()
      if (live && createOnly) throw conflict(`token ${id} already exists`)
      if (!live) {
        const secret = generateSecret()
        const row: TokenRow = {
          id,
          description: body.description,
          secret_hash: hashSecret(secret),
          allow_path_patterns: JSON.stringify(body.allow_path_patterns),
          ttl: body.ttl,
          expires_at: new Date(now.getTime() + lifetime).toISOString(),
          roles: '[]',
          system_id: null,
          generation: 0,
          ...createdBy(actor, now),
        }
        if (existing) await tx.tokens.delete(id)
        await tx.tokens.insert(row)
        return secret
      }
      const updated: TokenRow = {
        ...existing,
        description: body.description,
        allow_path_patterns: JSON.stringify(body.allow_path_patterns),
        ...modifiedBy(actor, now),
      }
      if (body.ttl !== '') {
        updated.ttl = body.ttl
        updated.expires_at = new Date(now.getTime() + lifetime).toISOString()
      }
      let secret: string | undefined
      if (body.regenerate) {
        updated.generation = existing.generation + 1
        secret =
          existing.system_id === null
            ? generateSecret()
            : deriveAgentSecret(deps.agentTokenKey, existing.id, updated.generation)
        updated.secret_hash = hashSecret(secret)
      }
      await tx.tokens.replace(updated)
      return secret
    })
    return envelope(c, result)
  })

  app.delete('/v1/tokens/:id', async (c) => {
    const id = checkId(c.req.param('id'), 'token id')
    await store.transaction(async (tx) => {
      const row = await tx.tokens.get(id)
      if (!row) throw notFound(`token ${id} not found`)
      if (row.system_id !== null) {
        throw conflict(`token ${id} is the agent token of system ${row.system_id}; delete the system instead`)
      }
      if (JSON.parse(row.roles).includes(WORKSPACE_ADMINISTRATOR)) {
        const now = Date.now()
        const admins = (await tx.tokens.list()).filter(
          (t) =>
            t.id !== id &&
            Date.parse(t.expires_at) > now &&
            JSON.parse(t.roles).includes(WORKSPACE_ADMINISTRATOR),
        )
        if (admins.length === 0) throw conflict(`token ${id} is the last ${WORKSPACE_ADMINISTRATOR} token`)
      }
      await tx.tokens.delete(id)
    })
    return envelope(c)
  })
  return app
}
