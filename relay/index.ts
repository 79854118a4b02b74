/** The relay's public API: start one, or build its app; its config schemas; the extension seam. */
export { createRelayApp, type RelayAppOptions } from './app.js'
export type { BundleCache, ServedBundle, TargetState } from './bundles/bundle-cache.js'
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
export { normaliseResource, type Target, TargetError } from './targets.js'
export type { RelayContext, RelayExtension, RelayExtensionFactory, RouteInstaller } from './types.js'
export { ServiceClient, ServiceConfigError, type UpstreamRequest } from './upstream/service-client.js'
