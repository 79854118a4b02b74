/**
 * One HTTP client per `services.<name>` of the agent configuration (credentials, headers, TLS),
 * shared by the bundle, decision-log and status plugins, as OPA's rest clients are.
 */
import { ConfigError } from '../../core/config.js'
import { ServiceClient, ServiceConfigError } from '../../plugins/rest/service-client.js'
import type { AgentConfig } from '../config/schema.js'

/**
 * Adds a client for each service of `config` not in `clients` yet (a discovered configuration may
 * add services; the ones in use are never replaced). @throws ConfigError naming the service key.
 */
export function addServiceClients(
  clients: Map<string, ServiceClient>,
  config: AgentConfig,
  userAgent: string,
): Map<string, ServiceClient> {
  for (const [name, service] of Object.entries(config.services)) {
    if (clients.has(name)) continue
    try {
      clients.set(name, new ServiceClient(name, service, { userAgent }))
    } catch (err) {
      if (err instanceof ServiceConfigError)
        throw new ConfigError([err.message.replace('by the relay', 'by regent run')])
      throw err
    }
  }
  return clients
}

/** The service a plugin uses: the one named, else the first configured (OPA's rule). */
export function pickService(
  clients: ReadonlyMap<string, ServiceClient>,
  named: string | undefined,
): ServiceClient | undefined {
  if (named !== undefined) return clients.get(named)
  return clients.values().next().value
}
