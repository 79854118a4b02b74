/**
 * `/v1/tokens`: API tokens. The secret is returned once (on create, or on update with
 * `regenerate: true`); only its hash is kept. `If-None-Match: *` makes PUT create-only (409
 * when an unexpired token has the id). New tokens carry no role until bound to one.
 */
import { Hono } from 'hono'
import { z } from 'zod'
import { badRequest, conflict, forbidden, notFound, readStructuredBody } from '../../core/http/index.js'
import {
  type Actor,
  createdBy,
  modifiedBy,
  objectMeta,
  type ServiceRepositories,
  type TokenRow,
} from '../../store/service/index.js'
import { inChangeTransaction } from '../activity/change-transaction.js'
import { checkPathPattern } from '../auth.js'
import { narrowerAdmits } from '../authz/narrower.js'
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
  description: z.string().max(4096).optional(),
  ttl: z.string().default(''),
  // Absent on an update: the token keeps its patterns (absent on create: none, every path).
  allow_path_patterns: z.array(z.string().min(1)).max(100).optional(),
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

/**
 * Under `tokens.refresh` (WorkspaceTokenRefresher) a PUT may only regenerate the secret of an
 * existing token that belongs to no system. @throws HttpError 403 otherwise.
 */
function checkRefreshOnly(raw: unknown, existing: TokenRow | undefined, caller: string): void {
  if (!existing || existing.system_id !== null || !narrowerAdmits('tokens.refresh', raw)) {
    throw forbidden(
      `token ${caller} may only regenerate existing tokens that belong to no system (body {"regenerate": true})`,
    )
  }
}

/**
 * True when someone other than token `tokenId` (a live token, a user or a claim) still holds
 * WorkspaceAdministrator, so deleting that token leaves the workspace administrable.
 */
async function anotherAdministrator(tx: ServiceRepositories, tokenId: string): Promise<boolean> {
  const now = Date.now()
  const admins = (await tx.grants.list()).filter(
    (b) => b.role === WORKSPACE_ADMINISTRATOR && b.resourceKind === 'workspace',
  )
  const holds = admins.some((b) => b.subjects.some((s) => s.kind === 'token' && s.id === tokenId))
  if (!holds) return true
  for (const subject of admins.flatMap((b) => b.subjects)) {
    if (subject.kind !== 'token') return true
    if (subject.id === tokenId) continue
    const token = await tx.tokens.get(subject.id)
    if (token && Date.parse(token.expires_at) > now) return true
  }
  return false
}

/** Routes of `/v1/tokens`. */
export function tokenRoutes(deps: ServiceDeps): Hono<ServiceEnv> {
  const { store } = deps
  const app = new Hono<ServiceEnv>()

  app.get('/v1/tokens', async (c) => envelope(c, (await store.tokens.list()).map(tokenView)))

  app.get('/v1/tokens/:id', async (c) => {
    const id = checkId(c.req.param('id'), 'token id')
    const row = await store.tokens.get(id)
    if (!row) throw notFound(`token ${id} not found`)
    return envelope(c, tokenView(row))
  })

  app.put('/v1/tokens/:id', async (c) => {
    const id = checkId(c.req.param('id'), 'token id')
    const raw = await readStructuredBody(c)
    const body = validateBody(tokenRequestSchema, raw, 'token')
    if (body.id !== undefined && body.id !== id)
      throw badRequest(`id: "${body.id}" does not match the path's token id "${id}"`)
    body.allow_path_patterns?.forEach((pattern, i) => {
      const problem = checkPathPattern(pattern)
      if (problem) throw badRequest(`allow_path_patterns.${i}: invalid regular expression: ${problem}`)
    })
    const lifetime = ttlMs(body.ttl)
    const createOnly = c.req.header('If-None-Match')?.trim() === '*'
    const actor: Actor = { by: c.var.principal.id, through: 'api' }
    const now = new Date()

    const refreshOnly = c.var.authorization?.action === 'tokens.refresh'
    const result = await inChangeTransaction(c, store, async (tx) => {
      const existing = await tx.tokens.get(id)
      const live = existing !== undefined && Date.parse(existing.expires_at) > now.getTime()
      if (live && createOnly) throw conflict(`token ${id} already exists`)
      if (refreshOnly) checkRefreshOnly(raw, live ? existing : undefined, c.var.principal.id)
      if (!live) {
        const secret = generateSecret()
        const row: TokenRow = {
          id,
          description: body.description ?? '',
          secret_hash: hashSecret(secret),
          allow_path_patterns: JSON.stringify(body.allow_path_patterns ?? []),
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
        description: body.description ?? existing.description,
        ...(body.allow_path_patterns !== undefined
          ? { allow_path_patterns: JSON.stringify(body.allow_path_patterns) }
          : {}),
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
    await inChangeTransaction(c, store, async (tx) => {
      const row = await tx.tokens.get(id)
      if (!row) throw notFound(`token ${id} not found`)
      if (row.system_id !== null) {
        throw conflict(`token ${id} is the agent token of system ${row.system_id}; delete the system instead`)
      }
      if (!(await anotherAdministrator(tx, id))) {
        throw conflict(`token ${id} is the last holder of ${WORKSPACE_ADMINISTRATOR}`)
      }
      await tx.tokens.delete(id)
      // A later token with the same id must not inherit this one's access.
      await tx.grants.removeSubject('token', id)
    })
    deps.authorizer.changed()
    return envelope(c)
  })
  return app
}
