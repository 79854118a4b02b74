/**
 * Acknowledgements of delivered batches, committed behind the uploads: the forwarder hands a
 * delivered range here and goes on with the next upload while the buffer thread deletes it.
 * Ranges that arrive while a commit runs are deleted together in the next one (one transaction,
 * one fsync), in the order they were delivered.
 *
 * Nothing is acknowledged before the upstream's 2xx (a range only gets here after it), and a
 * failed commit leaves the rows on disk: they are sent again later, which the service's
 * decision_id dedupe absorbs, as for any failure between a 2xx and its delete.
 */
import type { Batch } from '../../store/decision-buffer/index.js'
import type { BufferThread } from './buffer-thread.js'

/** A delivered seq range of a batch. */
export interface DeliveredRange {
  batch: Batch
  fromSeq: number
  toSeq: number
}

/**
 * Ranges queued or being committed past which `add` waits. It bounds the memory they hold and
 * what a crash sends twice (delivered, not yet deleted): a few batches suffice to overlap the
 * deletes with the uploads.
 */
export const MAX_PENDING_RANGES = 4

/** See the module comment. */
export class AckQueue {
  private queued: DeliveredRange[] = []
  private committing: Promise<void> | undefined
  private committingCount = 0
  /** The first commit failure since the last `flush`; reported once by `flush`. */
  private failure: unknown

  constructor(private readonly buffer: Pick<BufferThread, 'acknowledgeMany'>) {}

  /** Ranges not yet committed. */
  get pending(): number {
    return this.queued.length + this.committingCount
  }

  /**
   * Queues a delivered range; resolves at once unless MAX_PENDING_RANGES are pending, then once
   * the commit in progress is done (the uploads get ahead of the deletes by a bounded amount).
   */
  async add(range: DeliveredRange): Promise<void> {
    this.queued.push(range)
    this.kick()
    if (this.pending > MAX_PENDING_RANGES) await this.committing
  }

  /**
   * Resolves once every range added so far is committed; rejects with the commit failure, if
   * any happened since the last flush (those rows stay on disk and are sent again).
   */
  async flush(): Promise<void> {
    while (this.committing) await this.committing
    const failure = this.failure
    this.failure = undefined
    if (failure !== undefined) throw failure
  }

  private kick(): void {
    if (this.committing || this.queued.length === 0) return
    const ranges = this.queued
    this.queued = []
    this.committingCount = ranges.length
    this.committing = this.buffer
      .acknowledgeMany(ranges)
      .catch((err: unknown) => {
        this.failure ??= err
      })
      .finally(() => {
        this.committing = undefined
        this.committingCount = 0
        this.kick()
      })
  }
}
