/**
 * Keeps the decision log's full-text index current (SQLite: see store/migrations/0003): new
 * decisions are indexed in small batches shortly after they are stored, so decision intake never
 * waits for the index. While it is behind, it works batch after batch, yielding the event loop
 * between them; when it is current, it checks again every `idleMs`. Searches are exact either
 * way: rows not indexed yet are checked without the index.
 */
import type { Logger } from 'pino'
import type { ServiceStore } from '../store/service/index.js'

export interface DecisionTextIndexerOptions {
  store: ServiceStore
  logger: Logger
  /** Decisions per batch: one batch is one short transaction. */
  batchRows?: number
  /** Pause when the index is current (or after a failure). */
  idleMs?: number
}

/** Runs `store.decisions.indexText` in the background until stopped. */
export class DecisionTextIndexer {
  private timer: NodeJS.Timeout | undefined
  private running: Promise<void> | undefined
  private stopped = false

  constructor(private readonly options: DecisionTextIndexerOptions) {}

  /** Starts indexing (the first batch right away). */
  start(): void {
    this.schedule(0)
  }

  /** Stops after the batch in progress, if any. */
  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await this.running
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return
    this.timer = setTimeout(() => {
      this.running = this.batch().then((delay) => {
        this.running = undefined
        this.schedule(delay)
      })
    }, delayMs)
    this.timer.unref()
  }

  // Resolves to the delay before the next batch.
  private async batch(): Promise<number> {
    const { store, logger, batchRows = 500, idleMs = 1000 } = this.options
    try {
      const indexed = await store.decisions.indexText(batchRows)
      return indexed >= batchRows ? 0 : idleMs
    } catch (err) {
      logger.warn({ err: (err as Error).message }, 'decision text indexing failed; retrying')
      return idleMs
    }
  }
}
