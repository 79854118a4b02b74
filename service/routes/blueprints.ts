/**
 * `/v1/blueprints`: the names of the blueprints on offer, what one would create, and applying it
 * (`POST /v1/blueprints/{name}` with an empty body). Refusals of these routes use the
 * `meta.v2.ErrorResponse` envelope (`{"Error": "…"}`), as the management API's description gives
 * them; authentication and authorization refusals keep the service's usual envelope.
 */
import { type Context, Hono } from 'hono'
import {
  type BodyLimits,
  badRequest,
  HttpError,
  internalError,
  notFound,
  parseJsonText,
  readBodyText,
} from '../../core/http/index.js'
import { changeTransaction } from '../activity/change-transaction.js'
import { applyBlueprint } from '../blueprints/apply.js'
import { type BlueprintCatalog, InvalidBlueprintError } from '../blueprints/catalog.js'
import type { Blueprint, BlueprintResource } from '../blueprints/definition.js'
import type { ServiceDeps, ServiceEnv } from '../types.js'
import { envelope, printable } from '../validation.js'

/** Routes of `/v1/blueprints`. */
export function blueprintRoutes(
  deps: ServiceDeps,
  catalog: BlueprintCatalog,
  limits: BodyLimits,
): Hono<ServiceEnv> {
  const app = new Hono<ServiceEnv>()

  async function find(name: string): Promise<Blueprint> {
    let blueprint: Blueprint | undefined
    try {
      blueprint = await catalog.get(name)
    } catch (err) {
      // A broken file is the service's configuration, not the caller's request.
      if (err instanceof InvalidBlueprintError) throw internalError(err.message)
      throw err
    }
    if (!blueprint) throw notFound(`blueprint "${printable(name)}" not found`)
    return blueprint
  }

  app.get('/v1/blueprints', async (c) => envelope(c, await catalog.names()))

  app.get('/v1/blueprints/:name', (c) =>
    v2Errors(c, async () => {
      const name = c.req.param('name')
      const blueprint = await find(name)
      return envelope(c, {
        blueprint: name,
        description: blueprint.description,
        resources: plannedResources(blueprint),
      })
    }),
  )

  app.post('/v1/blueprints/:name', (c) =>
    v2Errors(c, async () => {
      const name = c.req.param('name')
      await requireEmptyBody(c, limits)
      const blueprint = await find(name)
      const resources = await applyBlueprint(
        deps,
        name,
        blueprint,
        c.var.principal,
        changeTransaction(c, deps.store),
      )
      return envelope(c, { blueprint: name, resources })
    }),
  )
  return app
}

/** What applying would name, in the order applying answers it. */
function plannedResources(blueprint: Blueprint): BlueprintResource[] {
  return blueprint.systems.flatMap((system) => [
    { id: system.id, type: 'system' as const },
    ...Object.keys(system.policies).map((p) => ({
      id: `systems/${system.id}/${p}`,
      type: 'policy' as const,
    })),
    ...Object.keys(system.data).map((p) => ({ id: `systems/${system.id}/${p}`, type: 'data' as const })),
  ])
}

// BlueprintPostRequest is an empty object: accept no body or `{}`, refuse anything else.
async function requireEmptyBody(c: Context<ServiceEnv>, limits: BodyLimits): Promise<void> {
  const text = (await readBodyText(c, limits)).trim()
  if (text === '') return
  const value = parseJsonText(text)
  if (value === null || typeof value !== 'object' || Array.isArray(value) || Object.keys(value).length > 0)
    throw badRequest('the request body must be empty or {}: a blueprint takes no parameters')
}

async function v2Errors(c: Context<ServiceEnv>, handle: () => Promise<Response>): Promise<Response> {
  try {
    return await handle()
  } catch (err) {
    if (!(err instanceof HttpError)) throw err
    c.error = err // the request log line names the refusal, as for every other route
    return c.json({ Error: err.message }, err.status)
  }
}
