/**
 * `/v1/data/{path}`: plain JSON documents. GET reads a stored document, a value inside one,
 * or the tree assembled from the documents below the path; PUT replaces, PATCH applies a JSON
 * Patch, DELETE removes. `ETag`/`If-None-Match` on reads, `If-Match` on writes. Documents under
 * `systems/{id}/…` feed that system's bundle.
 *
 * Evaluation (docs/data-evaluation.md): GET with DataRequest query parameters, POST with a
 * DataRequest body, and GET of a path no stored document covers (a rule's virtual document) are
 * evaluated over the stored policies and data (service/evaluation/).
 */
import type { Context } from 'hono'
import { Hono } from 'hono'
import {
  type BodyLimits,
  badRequest,
  conflict,
  HttpError,
  mediaType,
  notFound,
  readBodyText,
} from '../../core/http/index.js'
import { type Actor, type DataDocumentRow, upsertedBy } from '../../store/service/index.js'
import { inChangeTransaction } from '../activity/change-transaction.js'
import { DataConflictError, placeAt, valueAt } from '../data-tree.js'
import { evaluateDataRequest } from '../evaluation/data-evaluation.js'
import {
  asksForEvaluation,
  type DataRequest,
  dataRequestFromBody,
  dataRequestFromQuery,
} from '../evaluation/data-request.js'
import {
  documentEtag,
  parseJsonDocument,
  parseYamlDocument,
  stringifyJsonDocument,
} from '../json-document.js'
import { applyJsonPatch, JsonPatchError, jsonPatchSchema } from '../json-patch.js'
import type { ServiceDeps, ServiceEnv } from '../types.js'
import { checkSlashPath, envelope, pathAfter, systemOfPath, validateBody } from '../validation.js'

const PREFIX = '/v1/data/'
const YAML_TYPES = new Set(['application/x-yaml', 'application/yaml', 'text/yaml'])

const preconditionFailed = (message: string) => new HttpError(412, 'precondition_failed', message)

function matchesEtag(header: string | undefined, etag: string): boolean {
  if (!header) return false
  return header.split(',').some((t) => {
    const tag = t.trim().replace(/^W\//, '')
    return tag === '*' || tag === etag
  })
}

async function readDocument(c: Context, limits: BodyLimits): Promise<unknown> {
  const text = await readBodyText(c, limits)
  if (text.trim() === '') throw badRequest('request body is required: the JSON document to store')
  return YAML_TYPES.has(mediaType(c)) ? parseYamlDocument(text, limits.maxYamlNodes) : parseJsonDocument(text)
}

/** The service's `{request_id, result}` envelope, the document's numbers written as stored. */
function documentEnvelope(c: Context<ServiceEnv>, result: unknown): Response {
  const text = stringifyJsonDocument({ request_id: c.var.requestId, result })
  return c.body(text, 200, { 'Content-Type': 'application/json' })
}

/** Routes of `/v1/data`. */
export function dataRoutes(deps: ServiceDeps, limits: BodyLimits): Hono<ServiceEnv> {
  const { store, builder } = deps
  const app = new Hono<ServiceEnv>()

  async function write(
    c: Context<ServiceEnv>,
    path: string,
    next: (existing: DataDocumentRow | undefined) => unknown,
  ): Promise<unknown> {
    const systemId = systemOfPath(path)
    const actor: Actor = { by: c.var.principal.id, through: 'api' }
    const value = await inChangeTransaction(c, store, async (tx) => {
      if (systemId !== null && !(await tx.systems.exists(systemId)))
        throw notFound(`system ${systemId} not found`)
      const existing = await tx.dataDocuments.get(path)
      const ifMatch = c.req.header('If-Match')
      if (ifMatch !== undefined && !(existing && matchesEtag(ifMatch, existing.etag))) {
        throw preconditionFailed(`document ${path} does not match If-Match ${ifMatch}`)
      }
      if (existing && c.req.header('If-None-Match')?.trim() === '*')
        throw conflict(`document ${path} already exists`)
      const updated = next(existing)
      const text = stringifyJsonDocument(updated)
      await tx.dataDocuments.upsert({
        path,
        system_id: systemId,
        value: text,
        etag: documentEtag(text),
        ...upsertedBy(actor, existing),
      })
      if (systemId !== null) await tx.systems.bumpContentVersion(systemId)
      return updated
    })
    if (systemId !== null) await builder.rebuild(systemId)
    return value
  }

  async function evaluate(
    c: Context<ServiceEnv>,
    path: string,
    request: DataRequest,
    undefinedIsNotFound = false,
  ): Promise<Response> {
    const text = await evaluateDataRequest(deps, path, request, c.var.requestId, { undefinedIsNotFound })
    return c.body(text, 200, { 'Content-Type': 'application/json' })
  }

  app.get('/v1/data', (c) => evaluate(c, '', dataRequestFromQuery(c.req.query())))
  app.post('/v1/data', async (c) => evaluate(c, '', dataRequestFromBody(await readBodyText(c, limits))))
  app.post('/v1/data/*', async (c) => {
    const path = checkSlashPath(pathAfter(c, PREFIX), 'data path')
    return evaluate(c, path, dataRequestFromBody(await readBodyText(c, limits)))
  })

  app.get('/v1/data/*', async (c) => {
    const path = checkSlashPath(pathAfter(c, PREFIX), 'data path')
    // NOTE(service): `?rego=` used to be ignored and the raw document answered as if the query had run (issue 21).
    const query = c.req.query()
    if (asksForEvaluation(query)) return evaluate(c, path, dataRequestFromQuery(query))
    const exact = await store.dataDocuments.get(path)
    if (exact) {
      c.header('ETag', exact.etag)
      if (matchesEtag(c.req.header('If-None-Match'), exact.etag)) return c.body(null, 304)
      return documentEnvelope(c, parseJsonDocument(exact.value))
    }
    // A value inside a stored document?
    const segments = path.split('/')
    const ancestors = segments.slice(0, -1).map((_, i) => segments.slice(0, i + 1).join('/'))
    const [closest] = (await store.dataDocuments.getMany(ancestors)).sort(
      (a, b) => b.path.length - a.path.length,
    )
    if (closest) {
      const inner = valueAt(parseJsonDocument(closest.value), segments.slice(closest.path.split('/').length))
      if (inner !== undefined) return documentEnvelope(c, inner)
    }
    // The documents below the path, assembled into one tree.
    const below = await store.dataDocuments.listBelow(path)
    // No stored document here: the path may name a rule's value (a virtual document).
    if (below.length === 0) {
      try {
        return await evaluate(c, path, {}, true)
      } catch (err) {
        // A plain read is not a request to evaluate: policies in scope that do not compile
        // (outside systems/ they are only parsed) leave it what it was, a 404, saying why.
        if (err instanceof HttpError && err.status === 400 && err.message.startsWith('rego_modules:'))
          throw notFound(
            `no data document at ${path}, and the policies in scope do not compile: ${err.message}`,
          )
        throw err
      }
    }
    const tree: Record<string, unknown> = {}
    try {
      for (const doc of below)
        placeAt(tree, doc.path.slice(path.length + 1).split('/'), parseJsonDocument(doc.value), doc.path)
    } catch (err) {
      if (err instanceof DataConflictError) throw conflict(err.message)
      throw err
    }
    return documentEnvelope(c, tree)
  })

  app.put('/v1/data/*', async (c) => {
    const path = checkSlashPath(pathAfter(c, PREFIX), 'data path')
    const document = await readDocument(c, limits)
    await write(c, path, () => document)
    return envelope(c)
  })

  app.patch('/v1/data/*', async (c) => {
    const path = checkSlashPath(pathAfter(c, PREFIX), 'data path')
    const patch = validateBody(jsonPatchSchema, await readDocument(c, limits), 'JSON Patch')
    const result = await write(c, path, (existing) => {
      if (!existing) throw notFound(`no data document at ${path}`)
      try {
        return applyJsonPatch(parseJsonDocument(existing.value), patch)
      } catch (err) {
        if (err instanceof JsonPatchError)
          throw badRequest(`cannot apply the patch to ${path}: ${err.message}`)
        throw err
      }
    })
    return documentEnvelope(c, result)
  })

  app.delete('/v1/data/*', async (c) => {
    const path = checkSlashPath(pathAfter(c, PREFIX), 'data path')
    const systemId = systemOfPath(path)
    await inChangeTransaction(c, store, async (tx) => {
      if (!(await tx.dataDocuments.delete(path))) throw notFound(`no data document at ${path}`)
      if (systemId !== null) await tx.systems.bumpContentVersion(systemId)
    })
    if (systemId !== null) await builder.rebuild(systemId)
    return envelope(c)
  })
  return app
}
