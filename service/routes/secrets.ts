/**
 * `/v1/secrets`: named values (git SSH keys, passphrases, credentials) other objects refer to by
 * id. Ids are slash paths (`git/ssh/key`). PUT `{name, description, secret}` creates or replaces
 * (create-only with `If-None-Match: *`, 409 when it exists); the value may be empty and is
 * sealed before it is stored (service/secrets/). GET answers metadata only: no response, error or
 * log line carries a value. Who may call these routes is decided by the authorization middleware.
 */
import { Hono } from 'hono'
import { z } from 'zod'
import { badRequest, conflict, HttpError, notFound, readStructuredBody } from '../../core/http/index.js'
import {
  type Actor,
  createdBy,
  modifiedBy,
  objectMeta,
  type SecretMetadataRow,
} from '../../store/service/index.js'
import { inChangeTransaction } from '../activity/change-transaction.js'
import { secretReferences } from '../datasources/validate.js'
import { systemsReferencingSecret } from '../secrets/references.js'
import type { ServiceDeps, ServiceEnv } from '../types.js'
import { checkSlashPath, envelope, pathAfter, printable, validateBody } from '../validation.js'

const PREFIX = '/v1/secrets/'
const SEGMENT = /^[A-Za-z0-9._@:+=-]+$/

const secretRequestSchema = z.strictObject({
  name: z.string().max(256).default(''),
  description: z.string().max(4096).default(''),
  // No message may quote the value: zod's type errors name the type received, never the value.
  secret: z.string({ error: 'required: the value as a string (it may be empty)' }).max(1024 * 1024),
})

/** The API shape of a secret (`secrets.v1.Secret`): never its value. */
export function secretView(row: SecretMetadataRow) {
  return { id: row.id, name: row.name, description: row.description, metadata: objectMeta(row) }
}

/**
 * The secret id of the request's path: a slash path of letters, digits and `._@:+=-`.
 * @throws HttpError 400 naming the id.
 */
function secretIdOf(raw: string): string {
  const id = checkSlashPath(raw, 'secret id')
  if (id.length > 512 || !id.split('/').every((segment) => SEGMENT.test(segment))) {
    throw badRequest(
      `invalid secret id "${printable(id)}": use up to 512 letters, digits and '.', '_', '@', ':', '+', '=', '-' between slashes`,
    )
  }
  return id
}

/**
 * The request body, whose parse errors say only where the body is malformed: a JSON or YAML
 * error message may quote the text around the error, which here is the secret value.
 */
async function readSecretBody(c: Parameters<typeof readStructuredBody>[0]): Promise<unknown> {
  try {
    return await readStructuredBody(c)
  } catch (err) {
    if (err instanceof HttpError && err.status === 400) {
      throw badRequest('malformed secret body: expected a JSON object {name, description, secret}')
    }
    throw err
  }
}

/** Routes of `/v1/secrets`. */
export function secretRoutes(deps: ServiceDeps): Hono<ServiceEnv> {
  const { store, secrets } = deps
  const app = new Hono<ServiceEnv>()

  app.get('/v1/secrets', async (c) => envelope(c, (await store.secrets.list()).map(secretView)))

  app.get('/v1/secrets/*', async (c) => {
    const id = secretIdOf(pathAfter(c, PREFIX))
    const row = await store.secrets.getMetadata(id)
    if (!row) throw notFound(`secret ${id} not found`)
    return envelope(c, secretView(row))
  })

  app.put('/v1/secrets/*', async (c) => {
    const id = secretIdOf(pathAfter(c, PREFIX))
    const body = validateBody(secretRequestSchema, await readSecretBody(c), 'secret')
    const createOnly = c.req.header('If-None-Match')?.trim() === '*'
    const actor: Actor = { by: c.var.principal.id, through: 'api' }
    const sealed = secrets.seal(id, body.secret)
    await inChangeTransaction(c, store, async (tx) => {
      const existing = await tx.secrets.getMetadata(id)
      if (existing && createOnly) throw conflict(`secret ${id} already exists`)
      const fields = { id, name: body.name, description: body.description, ...sealed }
      if (existing) await tx.secrets.replace({ ...existing, ...fields, ...modifiedBy(actor) })
      else await tx.secrets.insert({ ...fields, ...createdBy(actor) })
    })
    return envelope(c)
  })

  app.delete('/v1/secrets/*', async (c) => {
    const id = secretIdOf(pathAfter(c, PREFIX))
    await inChangeTransaction(c, store, async (tx) => {
      const users = (await systemsReferencingSecret(tx, id)).map((u) => `system ${u.system} (${u.field})`)
      for (const datasource of await tx.datasources.list()) {
        for (const ref of secretReferences(JSON.parse(datasource.config)))
          if (ref.id === id) users.push(`datasource ${datasource.id} (${ref.field})`)
      }
      if (users.length > 0) {
        const named = users.join(', ')
        throw conflict(`secret ${id} is in use by ${named}; change those first`)
      }
      if (!(await tx.secrets.delete(id))) throw notFound(`secret ${id} not found`)
    })
    return envelope(c)
  })
  return app
}
