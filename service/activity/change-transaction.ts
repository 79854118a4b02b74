/**
 * A change and its activity record in one database transaction ("never acknowledge what a
 * restart would not find"). The recording middleware gives each management request a
 * RequestActivity (`c.var.activity`); a route that changes something runs its writes through
 * `inChangeTransaction(c, store, work)`, which appends the request's record as the transaction's last
 * statement. When that append fails, the transaction rolls back: the change is not applied and
 * the caller gets 503. After the route, the middleware completes the record with the response
 * (status, timestamps, duration) instead of appending a second one.
 */
import type { Context } from 'hono'
import type { Logger } from 'pino'
import { serviceUnavailable } from '../../core/http/index.js'
import type { ServiceRepositories, ServiceStore } from '../../store/service/index.js'
import type { ServiceMetrics } from '../metrics.js'
import type { ServiceEnv } from '../types.js'
import { activityOf, type RequestStart } from './record.js'

/** Runs `work` in one transaction (what routes call instead of `store.transaction`). */
export type TransactionRunner = <T>(work: (tx: ServiceRepositories) => Promise<T>) => Promise<T>

/** The status a route answers when its change is applied (every mutating route answers 200). */
const APPLIED_STATUS = 200

export interface RequestActivityOptions {
  store: ServiceStore
  metrics: ServiceMetrics
  logger: Logger
  maxBodyBytes: number
}

/** One request's activity record, as far as the route's changes have written it. */
export class RequestActivity {
  /** The record's sequence number once a change transaction holding it committed. */
  committedSeq: number | undefined
  /** Why the record could not be written inside a change's transaction (the change rolled back). */
  failure: Error | undefined

  constructor(
    private readonly c: Context<ServiceEnv>,
    readonly start: RequestStart,
    private readonly options: RequestActivityOptions,
  ) {}

  /**
   * Runs `work` in one transaction that also appends this request's record (unless an earlier
   * transaction of the request already committed it: one record per request).
   * @throws HttpError 503 when the record cannot be written; nothing of `work` is then applied.
   */
  transaction<T>(work: (tx: ServiceRepositories) => Promise<T>): Promise<T> {
    const { store } = this.options
    if (this.committedSeq !== undefined) return store.transaction(work)
    let seq: number | undefined
    return store
      .transaction(async (tx) => {
        const result = await work(tx)
        seq = await this.appendWithin(tx)
        return result
      })
      .then((result) => {
        this.committedSeq = seq
        return result
      })
  }

  private async appendWithin(tx: ServiceRepositories): Promise<number> {
    const { metrics, logger, maxBodyBytes } = this.options
    const entry = activityOf(this.c, this.start, { maxBodyBytes, answering: APPLIED_STATUS })
    try {
      return await tx.activity.append(entry)
    } catch (err) {
      this.failure = err as Error
      metrics.activityRecordFailures.inc()
      const log = this.c.var.log ?? logger
      log.error(
        { err: (err as Error).message, code: (err as { code?: string }).code },
        'activity record not written; change rolled back',
      )
      throw serviceUnavailable(
        'the change was not applied: its activity record could not be written; check the database and retry',
        5,
      )
    }
  }
}

/**
 * The transaction runner for a route's change: the request's, which records the request in the
 * same transaction, or the store's own where no recorder runs (agent traffic, bare test apps).
 */
export function changeTransaction(c: Context<ServiceEnv>, store: ServiceStore): TransactionRunner {
  const activity = c.var.activity
  return activity ? (work) => activity.transaction(work) : (work) => store.transaction(work)
}

/** Runs `work` as the route's change: `changeTransaction(c, store)(work)`. */
export function inChangeTransaction<T>(
  c: Context<ServiceEnv>,
  store: ServiceStore,
  work: (tx: ServiceRepositories) => Promise<T>,
): Promise<T> {
  return changeTransaction(c, store)(work)
}
