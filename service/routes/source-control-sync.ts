/**
 * Syncing a git-backed system on demand: `POST /v1/systems/{id}/source-control/sync` (an
 * authenticated caller with `policies.write` on the system) fetches and rebuilds at once and
 * answers what happened; `POST /v1/systems/{id}/source-control/webhook` takes GitHub and GitLab
 * push events, authenticated by the shared secret instead of a token (route-table.ts marks it),
 * and syncs in the background so the sender is answered within its timeout.
 */
import { Hono } from 'hono'
import { badRequest, notFound, readRawBody, unauthorized } from '../../core/http/index.js'
import type { GitSource } from '../git-source/git-source.js'
import { checkWebhook } from '../git-source/webhook.js'
import type { ServiceDeps, ServiceEnv } from '../types.js'
import { checkId, envelope } from '../validation.js'

/** Largest webhook body read (GitHub caps payloads at 25 MB; a push's is far smaller). */
const MAX_WEBHOOK_BYTES = 1024 * 1024

export function sourceControlSyncRoutes(deps: ServiceDeps, source: GitSource): Hono<ServiceEnv> {
  const { store } = deps
  const app = new Hono<ServiceEnv>()

  async function gitBackedSystem(id: string) {
    const row = await store.systems.get(id)
    if (!row) throw notFound(`system ${id} not found`)
    if (!source.isGitBacked(row))
      throw badRequest(`system ${id} is not built from git: source_control.origin.url is not set`)
    return row
  }

  app.post('/v1/systems/:system/source-control/sync', async (c) => {
    const id = checkId(c.req.param('system'), 'system id')
    await gitBackedSystem(id)
    const outcome = await source.sync(id)
    return envelope(c, outcome)
  })

  app.post('/v1/systems/:system/source-control/webhook', async (c) => {
    const secret = deps.config.git.webhook_secret
    // Without a configured secret there is no webhook: nothing could tell a sender from anyone else.
    if (secret === undefined) throw notFound('git webhooks are off: set service.git.webhook_secret')
    const id = checkId(c.req.param('system'), 'system id')
    const body = await readRawBody(c, MAX_WEBHOOK_BYTES)
    const check = checkWebhook(secret, (name) => c.req.header(name), body)
    if (!check.ok) throw unauthorized(check.reason)
    await gitBackedSystem(id)
    if (!check.push) return envelope(c, { provider: check.provider, event: check.event, sync: 'ignored' })
    source
      .sync(id, { rebuild: 'when-changed' })
      .catch((err) => deps.logger.error({ system_id: id, err }, 'git sync after webhook failed'))
    return c.json(
      {
        request_id: c.var.requestId,
        result: { provider: check.provider, event: check.event, sync: 'started' },
      },
      202,
    )
  })

  return app
}
