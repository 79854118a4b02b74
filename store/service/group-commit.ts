/**
 * Group commit for the decision intake: uploads that arrive while a commit runs wait, and the
 * next commit takes all of them (one transaction, one flush). Each caller resolves after the
 * commit that holds its rows, with the number of its rows that were new; a failed commit rejects
 * every caller of that commit (nothing of theirs is stored).
 */
import type { NewDecision } from './decisions.js'

interface Waiting {
  rows: NewDecision[]
  resolve: (inserted: number) => void
  reject: (err: unknown) => void
}

/** See the module comment. */
export class GroupCommit {
  private queue: Waiting[] = []
  private flushing = false

  /**
   * @param commit stores every upload of a group in one transaction; the count of new rows of each
   * @param beforeGroup awaited before each group is taken (a turn of the event loop, so uploads
   *   already on their way join it)
   */
  constructor(
    private readonly commit: (uploads: NewDecision[][]) => Promise<number[]>,
    private readonly beforeGroup?: () => Promise<void>,
  ) {}

  /** Stores `rows`; resolves to the number stored, after the commit. */
  append(rows: NewDecision[]): Promise<number> {
    return new Promise<number>((resolve, reject) => {
      this.queue.push({ rows, resolve, reject })
      if (!this.flushing) void this.flush()
    })
  }

  private async flush(): Promise<void> {
    this.flushing = true
    try {
      while (this.queue.length > 0) {
        await this.beforeGroup?.()
        const group = this.queue
        this.queue = []
        try {
          const counts = await this.commit(group.map((waiting) => waiting.rows))
          for (let i = 0; i < group.length; i++) group[i]!.resolve(counts[i]!)
        } catch (err) {
          for (const waiting of group) waiting.reject(err)
        }
      }
    } finally {
      this.flushing = false
    }
  }
}
