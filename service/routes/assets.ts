/**
 * `GET /v1/systems/{id}/assets/{type}`: configs to start from. `opa-config` boots an OPA agent
 * against this service (discovery does the rest); `relay-config` starts a regent relay for the
 * system. Both carry the system's agent token, so only an administrator or that token may read them.
 */
import { Hono } from 'hono'
import { internalError, notFound } from '../../core/http/index.js'
import { opaConfigYaml, relayConfigYaml, type SystemIdentity } from '../agent-config.js'
import { publicBaseUrl } from '../public-base-url.js'
import { deriveAgentSecret } from '../token-secrets.js'
import type { ServiceDeps, ServiceEnv } from '../types.js'
import { checkId, printable } from '../validation.js'

const ASSET_TYPES = ['opa-config', 'relay-config'] as const

/** Routes of `/v1/systems/{id}/assets`. */
export function assetRoutes(deps: ServiceDeps): Hono<ServiceEnv> {
  const { store } = deps
  const app = new Hono<ServiceEnv>()

  app.get('/v1/systems/:system/assets/:assettype', async (c) => {
    const systemId = checkId(c.req.param('system'), 'system id')
    const assetType = c.req.param('assettype')
    if (!(ASSET_TYPES as readonly string[]).includes(assetType)) {
      throw notFound(`unknown asset type "${printable(assetType)}": use ${ASSET_TYPES.join(' or ')}`)
    }
    const system = await store.systems.get(systemId)
    if (!system) throw notFound(`system ${systemId} not found`)
    const token = await store.tokens.findForSystem(systemId)
    if (!token) throw internalError(`system ${systemId} has no agent token`)
    const secret = deriveAgentSecret(deps.agentTokenKey, token.id, token.generation)
    // Never the Host header as sent: it would send agents, with their token, where it says.
    const base = publicBaseUrl(c, deps.config)
    const identity: SystemIdentity = { id: system.id, type: system.type }
    const yaml =
      assetType === 'opa-config'
        ? opaConfigYaml(identity, base, secret)
        : relayConfigYaml(identity, base, secret, deps.builder.publishedKey)
    return c.body(yaml, 200, {
      'Content-Type': 'application/yaml; charset=utf-8',
      'Cache-Control': 'no-store',
    })
  })
  return app
}
