/**
 * The service's store: one object with a repository per table, opened on SQLite or PostgreSQL
 * with migrations applied. `transaction` gives the same repositories bound to one transaction.
 */

import { type Kysely, sql } from 'kysely'
import { openDatabase, type ServiceDatabase, type SqlDialect } from '../database.js'
import { migrateToLatest, migrationsApplied } from '../migrations/index.js'
import { ActivityRepository } from './activity.js'
import { AgentStatusRepository } from './agent-status.js'
import { BundleRepository } from './bundles.js'
import { DataDocumentRepository } from './data-documents.js'
import { DatasourceRepository } from './datasources.js'
import { SqliteDecisionAppender } from './decision-appender.js'
import { type DecisionAppender, DecisionRepository } from './decisions.js'
import { GitSyncRepository } from './git-sync.js'
import { GrantRepository } from './grants.js'
import { LibraryRepository } from './libraries.js'
import { PolicyRepository } from './policies.js'
import { PostgresDecisionAppender } from './postgres-decision-appender.js'
import { ServiceReadCaches } from './read-cache.js'
import { RegistryBundleRepository } from './registry-bundles.js'
import { SecretRepository } from './secrets.js'
import { SettingsRepository } from './settings.js'
import { SystemRepository } from './systems.js'
import type { ServiceTables } from './tables.js'
import { TokenRepository } from './tokens.js'

/**
 * How long a cached token or bundle revision is trusted (read-cache.ts): the bound within which
 * a token revoked or a bundle built by another replica on the same PostgreSQL is seen here.
 */
export const READ_CACHE_TTL_MS = 1000

/** Size of the row a write probe stores and removes. */
const PROBE_BYTES = 64 * 1024

/** The repositories, bound to a connection or to one transaction. */
export class ServiceRepositories {
  readonly settings: SettingsRepository
  readonly tokens: TokenRepository
  readonly systems: SystemRepository
  readonly policies: PolicyRepository
  readonly dataDocuments: DataDocumentRepository
  readonly bundles: BundleRepository
  readonly decisions: DecisionRepository
  readonly agentStatus: AgentStatusRepository
  readonly secrets: SecretRepository
  readonly grants: GrantRepository
  readonly activity: ActivityRepository
  readonly registryBundles: RegistryBundleRepository
  readonly gitSync: GitSyncRepository
  readonly datasources: DatasourceRepository
  readonly libraries: LibraryRepository

  /** `decisionAppender`: the decision intake's prepared statements (not given inside transactions). */
  constructor(
    db: Kysely<ServiceTables>,
    dialect: SqlDialect,
    caches: ServiceReadCaches,
    decisionAppender?: DecisionAppender,
  ) {
    this.settings = new SettingsRepository(db)
    this.tokens = new TokenRepository(db, caches.tokens)
    this.systems = new SystemRepository(db)
    this.policies = new PolicyRepository(db)
    this.dataDocuments = new DataDocumentRepository(db)
    this.bundles = new BundleRepository(db, caches.revisions)
    this.decisions = new DecisionRepository(db, dialect, decisionAppender)
    this.agentStatus = new AgentStatusRepository(db)
    this.secrets = new SecretRepository(db)
    this.grants = new GrantRepository(db)
    this.activity = new ActivityRepository(db, dialect)
    this.registryBundles = new RegistryBundleRepository(db)
    this.gitSync = new GitSyncRepository(db)
    this.datasources = new DatasourceRepository(db)
    this.libraries = new LibraryRepository(db)
  }
}

/** The appender on the database's own connection (SQLite) or pool (PostgreSQL). */
function decisionAppender(database: ServiceDatabase): DecisionAppender | undefined {
  if (database.sqlite) return new SqliteDecisionAppender(database.db, database.sqlite)
  if (database.pgPool) return new PostgresDecisionAppender(database.pgPool)
  return undefined
}

/** The service's open store. */
export class ServiceStore extends ServiceRepositories {
  private constructor(
    private readonly database: ServiceDatabase,
    private readonly caches: ServiceReadCaches,
  ) {
    super(database.db, database.dialect, caches, decisionAppender(database))
  }

  /**
   * Opens the database at `url` and applies pending migrations. `readCacheTtlMs` (default
   * READ_CACHE_TTL_MS; 0 turns the caches off) bounds how stale a cached token or revision may be.
   */
  static async open(options: {
    url: string
    schema?: string
    poolSize?: number
    readCacheTtlMs?: number
  }): Promise<ServiceStore> {
    const database = await openDatabase(options)
    try {
      await migrateToLatest(database)
    } catch (err) {
      await database.close()
      throw err
    }
    return new ServiceStore(database, ServiceReadCaches.create(options.readCacheTtlMs ?? READ_CACHE_TTL_MS))
  }

  get dialect(): SqlDialect {
    return this.database.dialect
  }

  /** Where the database lives, without credentials (for the start-up log line). */
  get location(): string {
    return this.database.location
  }

  /** Runs `work` in one transaction; it commits when `work` resolves and rolls back if it throws. */
  async transaction<T>(work: (tx: ServiceRepositories) => Promise<T>): Promise<T> {
    const before = this.caches.version
    try {
      return await this.database.db
        .transaction()
        .execute((trx) => work(new ServiceRepositories(trx, this.database.dialect, this.caches)))
    } finally {
      // A cached row read between the write and the commit must not outlive the commit.
      if (this.caches.version !== before) this.caches.invalidateAll()
    }
  }

  /**
   * A small write that fails as a real one would (SQLITE_FULL while the disk is full); nothing
   * is left behind. Readiness uses it to notice that a full disk has room again.
   */
  probeWrite(): Promise<void> {
    return this.transaction((tx) => tx.settings.writeAndRemoveProbe(PROBE_BYTES))
  }

  /** True when the database answers and every migration is applied (readiness). */
  async ready(): Promise<boolean> {
    try {
      await sql`select 1`.execute(this.database.db)
      return await migrationsApplied(this.database)
    } catch {
      return false
    }
  }

  close(): Promise<void> {
    return this.database.close()
  }
}
