/**
 * Keeps the decision log's full-text index current (SQLite: store/migrations/0003, PostgreSQL: 0012): new
 * decisions are indexed in small batches shortly after they are stored, so decision intake never
 * waits for the index. While it is behind, it works batch after batch, yielding the event loop
 * between them; when it is current, it checks again every `idleMs`. Searches are exact either
 * way: rows not indexed yet are checked without the index.
 *
 * While decisions are arriving, indexing takes at most `busyShare` of the main thread: a
 * trigram per character costs more than storing the row, so an indexer that ran flat out behind
 * a steady intake held the event loop (and the one SQLite connection) for most of each second,
 * and ingest fell to a tenth of the raw insert rate (docs/performance.md). It catches up at full
 * speed once intake pauses for `quietMs`.
 */
import type { Logger } from 'pino'
import { BackgroundLoop } from '../core/background-loop.js'
import type { ServiceStore } from '../store/service/index.js'

export interface DecisionTextIndexerOptions {
  store: ServiceStore
  logger: Logger
  /** Decisions per batch: one batch is one short transaction. */
  batchRows?: number
  /** Pause when the index is current (or after a failure). */
  idleMs?: number
  /** Share of the time spent indexing while decisions are arriving (0 < share <= 1). */
  busyShare?: number
  /** Time without a new decision after which intake counts as paused. */
  quietMs?: number
}

/** Runs `store.decisions.indexText` in the background until stopped. */
export class DecisionTextIndexer {
  private readonly loop = new BackgroundLoop(() => this.batch())

  constructor(private readonly options: DecisionTextIndexerOptions) {}

  /** Starts indexing (the first batch right away). */
  start(): void {
    this.loop.start()
  }

  /** Stops after the batch in progress, if any. */
  stop(): Promise<void> {
    return this.loop.stop()
  }

  // Resolves to the delay before the next batch.
  private async batch(): Promise<number> {
    const { store, logger, batchRows = 500, idleMs = 1000, busyShare = 0.1, quietMs = 1000 } = this.options
    try {
      const started = performance.now()
      const indexed = await store.decisions.indexText(batchRows)
      if (indexed < batchRows) return idleMs
      const busy = performance.now() - store.decisions.lastAppendAt < quietMs
      // Behind a running intake: pause so that indexing takes `busyShare` of the time.
      return busy ? (performance.now() - started) * (1 / busyShare - 1) : 0
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'decision text indexing failed; retrying')
      return idleMs
    }
  }
}
