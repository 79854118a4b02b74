/**
 * Group commit for intake: requests whose bodies finish in the same turn of the event loop are
 * appended in ONE SQLite transaction, so under load many agents share one commit (one fsync
 * with `sync: full`) while each still gets its answer only after its events are committed.
 */
import type { AppendOutcome, DecisionBuffer, RawEvent } from '../../store/decision-buffer/index.js'

interface Pending {
  events: RawEvent[]
  resolve: (outcome: AppendOutcome) => void
  reject: (err: unknown) => void
}

/** Bounds one transaction, so a burst cannot hold the event loop for long. */
const MAX_EVENTS_PER_COMMIT = 20_000

/** Queues appends and commits them together on the next turn of the event loop. */
export class GroupCommitter {
  private queue: Pending[] = []
  private scheduled = false
  private flushing: Promise<void> = Promise.resolve()
  private settle: (() => void) | undefined

  constructor(
    private readonly buffer: DecisionBuffer,
    /** Called after each commit, before the requests in it are answered. */
    private readonly afterCommit: () => void,
  ) {}

  /** Resolves with the append's outcome once committed; rejects with the SQLite error. */
  submit(events: RawEvent[]): Promise<AppendOutcome> {
    return new Promise((resolve, reject) => {
      this.queue.push({ events, resolve, reject })
      if (!this.scheduled) {
        this.scheduled = true
        this.flushing = new Promise<void>((done) => {
          this.settle = done
        })
        setImmediate(() => this.flush())
      }
    })
  }

  /** Resolves once everything submitted so far is committed (or failed). */
  async idle(): Promise<void> {
    while (this.scheduled) await this.flushing
  }

  private flush(): void {
    while (this.queue.length > 0) {
      let count = 0
      let take = 0
      while (
        take < this.queue.length &&
        (take === 0 || count + this.queue[take]!.events.length <= MAX_EVENTS_PER_COMMIT)
      ) {
        count += this.queue[take]!.events.length
        take++
      }
      const group = this.queue.splice(0, take)
      try {
        const outcomes = this.buffer.appendGroups(group.map((p) => p.events))
        this.afterCommit()
        for (const [i, p] of group.entries()) p.resolve(outcomes[i]!)
      } catch (err) {
        for (const p of group) p.reject(err)
      }
    }
    this.scheduled = false
    this.settle?.()
  }
}
