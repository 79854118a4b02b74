/**
 * The seam between the relay's core (bundles, status, health) and parts mounted into it, such as
 * the decision-log intake and forwarder (relay/decision-logs/): an extension gets the relay's
 * context, installs its routes into the relay's app, starts and stops with the relay, and adds
 * its own section to `/v1/relay/status` and its own condition to readiness.
 */
import type { Hono } from 'hono'
import type { Logger } from 'pino'
import type { AppEnv, FastPath } from '../core/http/index.js'
import type { BundleCache } from '../plugins/bundle/bundle-cache.js'
import type { ServiceClient } from '../plugins/rest/service-client.js'
import type { RelayConfig } from './config.js'
import type { RelayMetrics } from './metrics.js'
import type { RelayIdentity } from './status/relay-status.js'

/** What the relay hands to each extension. */
export interface RelayContext {
  config: RelayConfig
  logger: Logger
  /** The relay's Prometheus registry and instruments; register extension metrics in `metrics.registry`. */
  metrics: RelayMetrics
  cache: BundleCache
  /** Upstream clients by service name (credentials applied); see `config.decision_logs.service`. */
  services: ReadonlyMap<string, ServiceClient>
  /**
   * The storage folder the relay chose at start, writable (relay/storage.ts): `relay.storage.dir`
   * (or `--data-dir`), else `relay.storage.fallback_dir`.
   */
  dataDir: string
  /** Whether `dataDir` is a persistent volume (`relay.storage.persistent`), not an ephemeral one. */
  persistent: boolean
  identity: RelayIdentity
}

/** Adds routes to the relay's app. Installed after bearer auth, before the bundle catch-all. */
export type RouteInstaller = (app: Hono<AppEnv>, context: RelayContext) => void

/** A part mounted into the relay. */
export interface RelayExtension {
  /** Also the key of its section in `/v1/relay/status`, e.g. `decision_logs`. */
  name: string
  routes?: RouteInstaller
  /** Requests it answers before the app (see relay/fast-path.ts); offered after the bundle fast path. */
  fastPath?: FastPath
  /** Called once the server listens. */
  start?(): void | Promise<void>
  /** Called on shutdown after the server stopped accepting (flush, close the database). */
  stop?(): Promise<void>
  /** The extension's section of `/v1/relay/status` (e.g. buffer depth). */
  status?(): Record<string, unknown>
  /** Undefined when ready, else why not (reported by `/health/ready`). */
  ready?(): string | undefined
}

/** Builds an extension from the relay's context (opening its database, reading its config). */
export type RelayExtensionFactory = (context: RelayContext) => RelayExtension | Promise<RelayExtension>
