/** Types shared by the service's routes, middleware and builder. */
import type { Logger } from 'pino'
import type { AppEnv } from '../core/http/index.js'
import type { WriteHealth } from '../core/write-health.js'
import type { ServiceStore } from '../store/service/index.js'
import type { RequestActivity } from './activity/change-transaction.js'
import type { Authorizer } from './authz/authorizer.js'
import type { BundleBuilder } from './bundle-builder.js'
import type { BundleWatch } from './bundle-watch.js'
import type { ServiceSection } from './config.js'
import type { DatasourceScheduler } from './datasources/scheduler.js'
import type { DecisionParsePool } from './decision-parse-pool.js'
import type { EvaluationPool } from './evaluation/evaluation-pool.js'
import type { GitSource } from './git-source/git-source.js'
import type { IdentityVerifier } from './identity/verifier.js'
import type { ServiceMetrics } from './metrics.js'
import type { ModuleValidator } from './policy-validation.js'
import type { RegistryPublisher } from './registry/registry-publisher.js'
import type { SecretVault } from './secrets/vault.js'

/**
 * Who is calling: an API token (agent tokens included) or a user whose identity-provider JWT was
 * verified. `kind` and `id` are what role-binding subjects name and what activity records as
 * `requested_by`.
 */
export interface Principal {
  kind: 'token' | 'user'
  /** The token id, or the user id (the JWT's `sub` or the provider's configured claim). */
  id: string
  /** Roles the token row carries itself (the bootstrap administrator); empty for users. */
  roles: ReadonlySet<string>
  /** For a system's agent token: the only system it acts for. */
  systemId: string | null
  /** For users: the identity provider that verified the JWT. */
  provider?: string
  /** For users: the verified JWT's claims (what `claim` subjects match). */
  claims?: Readonly<Record<string, unknown>>
}

/** What the authorization step decided for this request (recorded by activity). */
export interface AuthorizationDecision {
  allowed: boolean
  /** The action it was decided for (the route table's, or its narrower one). */
  action?: string
  /** The grant that allowed it, when one did. */
  grant?: { id: string; role: string; resource: string }
}

/** Hono variables of every service request. */
export type ServiceEnv = {
  Variables: AppEnv['Variables'] & {
    principal: Principal
    authorization?: AuthorizationDecision
    /** The request's activity record (set by the recording middleware; absent for agent traffic). */
    activity?: RequestActivity
  }
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
  /** Seals and opens secret values. */
  secrets: SecretVault
  /** The data folder (git mirrors live in `<dataDir>/git-mirrors`). */
  dataDir: string
  /** Keeps versions of systems' bundles and uploads them to their bundle registries. */
  registry: RegistryPublisher
  /** Verifies identity-provider JWTs (no providers: every JWT is an unknown token). */
  identity: IdentityVerifier
  /** Decides every request (service/authz/); told when grants change. */
  authorizer: Authorizer
  /** Syncs systems built from git (service/git-source/). */
  gitSource: GitSource
  /** Runs data evaluations (`/v1/data` with a DataRequest) on worker threads. */
  evaluator: EvaluationPool
  /** Parses large decision-log uploads on a worker thread. */
  decisionParser: DecisionParsePool
  /** Runs the datasources (service/datasources/). */
  datasources: DatasourceScheduler
}
