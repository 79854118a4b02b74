/** Types shared by the service's routes, middleware and builder. */
import type { Logger } from 'pino'
import type { AppEnv } from '../core/http/index.js'
import type { WriteHealth } from '../core/write-health.js'
import type { ServiceStore } from '../store/service/index.js'
import type { BundleBuilder } from './bundle-builder.js'
import type { BundleWatch } from './bundle-watch.js'
import type { ServiceSection } from './config.js'
import type { ServiceMetrics } from './metrics.js'
import type { ModuleValidator } from './policy-validation.js'

/** Who is calling: the token that authenticated the request and what it may do. */
export interface Principal {
  tokenId: string
  roles: ReadonlySet<string>
  /** For a system's agent token: the only system it acts for. */
  systemId: string | null
}

/** Hono variables of every service request. */
export type ServiceEnv = {
  Variables: AppEnv['Variables'] & { principal: Principal }
}

/** What every route file is built from. */
export interface ServiceDeps {
  store: ServiceStore
  config: ServiceSection
  logger: Logger
  builder: BundleBuilder
  watch: BundleWatch
  metrics: ServiceMetrics
  /** Key agent-token secrets are derived with (shared by replicas through the database). */
  agentTokenKey: string
  validateModule: ModuleValidator
  /** Whether the database's disk takes writes (readiness goes 503 while it is full). */
  writeHealth: WriteHealth
}
