/**
 * The one scheduler of every polled datasource. Each tick it reads the datasources due (enabled,
 * `next_run_at` passed, lease free), claims each with a lease row (so on PostgreSQL one replica
 * runs a datasource at a time, and a replica that dies mid-run frees it when the lease expires),
 * and runs up to `maxConcurrentRuns` at once, never two runs of one datasource. A run stores its
 * data and its status in one transaction, or on failure only its status (the last good data
 * stays), then the system's bundle is rebuilt. `next_run_at` lives in the database, so the
 * schedule survives restarts. `runNow` is the on-demand trigger (POST /v1/datasources/{id}).
 */
import { randomUUID } from 'node:crypto'
import type { Logger } from 'pino'
import { BackgroundLoop } from '../../core/background-loop.js'
import { conflict, notFound } from '../../core/http/index.js'
import {
  type DatasourceRow,
  ORPHAN_AGE_MS,
  type ServiceRepositories,
  type ServiceStore,
} from '../../store/service/index.js'
import type { BundleBuilder } from '../bundle-builder.js'
import type { SecretVault } from '../secrets/vault.js'
import { nextRunDelay } from './backoff.js'
import { categoryNamed } from './categories.js'
import { fetchAndFilter, pollingIntervalMs, type RunLimits, runTimeoutMs } from './run.js'
import { type DatasourceStatus, parseStatus } from './status.js'
import { datasourceText, preparedText, storeRunData } from './store-data.js'
import { RunError } from './types.js'

export interface SchedulerOptions {
  store: ServiceStore
  builder: BundleBuilder
  secrets: SecretVault
  logger: Logger
  limits: RunLimits
  /** Milliseconds between looks for due datasources. */
  tickMs: number
  /** Runs in progress at once on this replica. */
  maxConcurrentRuns: number
  /** Added to a run's timeout to make its lease (the filter and the store come after the fetch). */
  leaseSlackMs?: number
}

const iso = (ms: number) => new Date(ms).toISOString()

/** Schedules and runs datasources; one per service process. */
export class DatasourceScheduler {
  /** This instance's name in lease rows. */
  readonly owner = `scheduler-${randomUUID()}`
  private readonly running = new Map<string, Promise<DatasourceStatus | undefined>>()
  /** On-demand runs between their trigger and their launch (reading and claiming the row). */
  private readonly starting = new Map<string, Promise<DatasourceStatus | undefined>>()
  private readonly stopping = new AbortController()
  private readonly loop: BackgroundLoop

  constructor(private readonly options: SchedulerOptions) {
    this.loop = new BackgroundLoop(() => this.tick())
  }

  /** Starts ticking. On SQLite (one process per file) leases left by a crash are released first. */
  async start(): Promise<void> {
    if (this.options.store.dialect === 'sqlite') await this.options.store.datasources.releaseAllLeases()
    this.loop.start()
  }

  /** When orphaned data chunks were last swept (0: not yet). */
  private sweptAt = 0

  /**
   * Deletes the data chunks no document refers to (data-chunks.ts): at the first tick, then about
   * every ORPHAN_AGE_MS. On SQLite (one process per file) nothing else is writing at start, so
   * the first sweep takes every orphan whatever its age.
   */
  private async sweepChunks(): Promise<void> {
    const now = Date.now()
    if (now - this.sweptAt < ORPHAN_AGE_MS) return
    const first = this.sweptAt === 0
    this.sweptAt = now
    const { store, logger } = this.options
    const swept = await store.dataDocuments.chunks.sweep(
      first && store.dialect === 'sqlite' ? 0 : ORPHAN_AGE_MS,
      now,
    )
    if (swept > 0) logger.info({ blobs: swept }, 'orphaned data chunks deleted')
  }

  /** Stops ticking, interrupts runs in progress and waits for them to record that. */
  async stop(): Promise<void> {
    this.stopping.abort(new Error('the service is stopping'))
    await this.loop.stop()
    await Promise.allSettled(this.running.values())
  }

  /** Ids of the datasources this replica is running now. */
  get runningIds(): string[] {
    return [...this.running.keys()]
  }

  /**
   * Runs `id` now and resolves to its status afterwards. A run already in progress here is
   * awaited instead of starting a second one.
   * @throws HttpError 404 when there is no such datasource, 409 when it is disabled, takes
   *   pushes, or runs on another replica.
   */
  async runNow(id: string): Promise<DatasourceStatus> {
    // Two triggers at once (a library change and a POST) share one run: the second must not
    // see its claim refused by the first's lease and report "another replica".
    const inProgress = this.running.get(id) ?? this.starting.get(id)
    if (inProgress) return (await inProgress) ?? parseStatus('')
    const start = (async () => {
      const row = await this.options.store.datasources.get(id)
      if (!row) throw notFound(`datasource ${id} not found`)
      if (row.scheduled !== 1)
        throw conflict(`datasource ${id} does not poll: it is disabled or takes pushes`)
      if (!(await this.claim(row))) throw conflict(`datasource ${id} is running on another replica`)
      return this.launch(row)
    })()
    this.starting.set(id, start)
    try {
      return (await start) ?? parseStatus('')
    } finally {
      this.starting.delete(id)
    }
  }

  private async tick(): Promise<number> {
    try {
      await this.sweepChunks()
      const free = this.options.maxConcurrentRuns - this.running.size
      if (free > 0 && !this.stopping.signal.aborted) {
        const ids = await this.options.store.datasources.due(iso(Date.now()), free)
        for (const id of ids) {
          if (this.running.has(id) || this.running.size >= this.options.maxConcurrentRuns) continue
          const row = await this.options.store.datasources.get(id)
          if (row && (await this.claim(row))) void this.launch(row)
        }
      }
    } catch (err) {
      this.options.logger.error({ err }, 'datasource scheduling failed')
    }
    return this.options.tickMs
  }

  private claim(row: DatasourceRow): Promise<boolean> {
    const now = Date.now()
    const category = categoryNamed(row.category)
    const timeout = category ? runTimeoutMs(category, JSON.parse(row.config), this.options.limits) : 0
    const until = iso(now + timeout + (this.options.leaseSlackMs ?? 60_000))
    return this.options.store.datasources.claim(row.id, this.owner, until, iso(now))
  }

  private launch(row: DatasourceRow): Promise<DatasourceStatus | undefined> {
    const run = this.execute(row)
      .catch((err) => {
        this.options.logger.error({ err, datasource: row.id }, 'datasource run failed unexpectedly')
        return undefined
      })
      .finally(() => {
        this.running.delete(row.id)
        // A free slot: look for due datasources now, not at the next tick. Without this a tick
        // starts at most max_concurrent_runs runs, so short runs were capped at that many per tick.
        this.loop.wake()
      })
    this.running.set(row.id, run)
    return run
  }

  /** One run of a claimed datasource; resolves to the status it recorded (undefined: lease lost). */
  private async execute(row: DatasourceRow): Promise<DatasourceStatus | undefined> {
    const { store, logger } = this.options
    const config = JSON.parse(row.config) as Record<string, unknown>
    const previous = parseStatus(row.status)
    const started = Date.now()
    const running: DatasourceStatus = {
      ...previous,
      code: 'running',
      message: 'run in progress',
      last_attempt: iso(started),
    }
    await store.datasources.setStatusIfOwner(row.id, this.owner, JSON.stringify(running))
    const interval = pollingIntervalMs(config)
    const category = categoryNamed(row.category)
    try {
      if (!category) throw new RunError(`unknown category ${row.category}`)
      const output = await fetchAndFilter({
        category,
        config,
        id: row.id,
        store,
        secrets: this.options.secrets,
        limits: this.options.limits,
        stopSignal: this.stopping.signal,
      })
      const finished = Date.now()
      const status: DatasourceStatus = {
        code: 'ok',
        message: '',
        last_attempt: running.last_attempt,
        last_success: iso(finished),
        duration: finished - started,
        size: output.size,
        items: output.items,
      }
      // Categories that land elsewhere (policy-library: modules) take the content itself; data is
      // written to text before the transaction opens (in slices that yield), a large text in chunks.
      const finish = async (tx: ServiceRepositories) =>
        // Deleted, or the lease expired and another replica took it: its run decides, store nothing.
        tx.datasources.finish(row.id, this.owner, {
          status: JSON.stringify(status),
          failures: 0,
          next_run_at: iso(finished + nextRunDelay(interval, 0)),
        })
      const land = category.land
      const changed = land
        ? await store.transaction(async (tx) =>
            (await finish(tx)) ? land(tx, row.id, row.system_id, output.content) : undefined,
          )
        : await storeRunData(
            store,
            row.id,
            row.system_id,
            output.text !== undefined
              ? await preparedText(output.text, output.etag)
              : await datasourceText(output.content),
            finish,
          )
      if (changed === undefined) return undefined
      logger.info(
        { datasource: row.id, size: output.size, items: output.items, changed },
        'datasource run stored',
      )
      if (changed && row.system_id !== null) await this.options.builder.rebuild(row.system_id)
      return status
    } catch (err) {
      const finished = Date.now()
      const message =
        err instanceof RunError
          ? err.message
          : `internal error: ${err instanceof Error ? err.message : String(err)}`
      const interrupted = this.stopping.signal.aborted
      const status: DatasourceStatus = {
        ...previous,
        code: 'error',
        message,
        last_attempt: running.last_attempt,
        duration: finished - started,
      }
      // An interrupted run is retried at the next start and does not count as a failure.
      const failures = interrupted ? row.failures : row.failures + 1
      const mine = await store.datasources.finish(row.id, this.owner, {
        status: JSON.stringify(status),
        failures,
        next_run_at: iso(interrupted ? finished : finished + nextRunDelay(interval, failures)),
      })
      logger.warn({ datasource: row.id, reason: message, failures }, 'datasource run failed')
      return mine ? status : undefined
    }
  }
}
