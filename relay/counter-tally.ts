/**
 * Counts taken on the relay's hot path (every agent poll) as plain numbers, added into their
 * prom-client counter when it is read (scrape, status). prom-client hashes the label object on
 * every `inc` (sort, join, validate): on a 304 that was a measurable share of the whole answer.
 */
import type { Counter } from 'prom-client'

/** Pending counts of a two-label counter, by label values. */
export class CounterTally<A extends string, B extends string> {
  private readonly pending = new Map<string, { labels: Record<A | B, string>; count: number }>()

  constructor(
    private readonly first: A,
    private readonly second: B,
  ) {}

  /** Counts one event with these label values. */
  add(a: string, b: string): void {
    const key = `${a}\n${b}`
    const entry = this.pending.get(key)
    if (entry) entry.count++
    else
      this.pending.set(key, {
        labels: { [this.first]: a, [this.second]: b } as Record<A | B, string>,
        count: 1,
      })
  }

  /** Moves the pending counts into `counter` (call from its `collect`). */
  flushInto(counter: Counter<A | B>): void {
    for (const entry of this.pending.values()) {
      if (entry.count === 0) continue
      counter.inc(entry.labels, entry.count)
      entry.count = 0
    }
  }
}
