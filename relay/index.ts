/** The relay's public API: start one, or build its app; its config schemas; the extension seam. */

export type { BundleCache, ServedBundle, TargetState } from '../plugins/bundle/bundle-cache.js'
export { normaliseResource, type Target, TargetError } from '../plugins/bundle/targets.js'
export { ServiceClient, ServiceConfigError, type UpstreamRequest } from '../plugins/rest/service-client.js'
export { createRelayApp, type RelayAppOptions } from './app.js'
export {
  type RelayConfig,
  type RelaySection,
  relayConfigSchema,
  relaySectionSchema,
  upstreamConfigShape,
} from './config.js'
export type { RelayMetrics } from './metrics.js'
export { type RunningRelay, type StartRelayOptions, startRelay } from './relay.js'
export type { RelayIdentity } from './status/relay-status.js'
export type { RelayContext, RelayExtension, RelayExtensionFactory, RouteInstaller } from './types.js'
