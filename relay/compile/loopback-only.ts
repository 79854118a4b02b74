/**
 * `/v1/compile` without `relay.agent_auth` is open only to callers on the relay's own host (the
 * loopback interface): the pod's own containers in a sidecar deployment. A caller from another
 * address gets 403 naming the setting to turn on, whatever address the relay listens on, so that
 * binding 0.0.0.0 for the kubelet's probes never opens the endpoint to the network by accident.
 * With `bearer` or `mtls` auth the endpoint is open to every authenticated caller.
 */
import type { IncomingMessage } from 'node:http'
import type { MiddlewareHandler } from 'hono'
import { type AppEnv, forbidden, isLoopbackAddress } from '../../core/http/index.js'

/** The caller's address, or undefined for a request that did not come over a socket (in-process). */
function remoteAddress(env: unknown): string | undefined {
  const incoming = (env as { incoming?: IncomingMessage } | undefined)?.incoming
  return incoming?.socket?.remoteAddress
}

/** Refuses callers that are not on loopback (install only when agent_auth is none). */
export function loopbackOnly(): MiddlewareHandler<AppEnv> {
  return async (c, next) => {
    const address = remoteAddress(c.env)
    if (address !== undefined && !isLoopbackAddress(address)) {
      throw forbidden(
        '/v1/compile answers callers on other hosts only with relay.agent_auth (bearer or mtls) configured',
      )
    }
    await next()
  }
}
