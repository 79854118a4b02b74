/**
 * OPA's per-request metrics (`?metrics` on its REST API and the compile endpoint): nanosecond timers
 * named as OPA names them (`timer_rego_query_eval_ns`, …) and counters (`counter_*`).
 */
export class RequestMetrics {
  readonly #values = new Map<string, number>()
  readonly #started = new Map<string, bigint>()

  /** Starts (or restarts) the timer `name`. */
  start(name: string): void {
    this.#started.set(name, process.hrtime.bigint())
  }

  /** Stops the timer `name`, adding the time since `start`. */
  stop(name: string): void {
    const started = this.#started.get(name)
    if (started === undefined) return
    this.#started.delete(name)
    this.#values.set(name, (this.#values.get(name) ?? 0) + Number(process.hrtime.bigint() - started))
  }

  /** Times `f` under `name`. */
  time<T>(name: string, f: () => T): T {
    this.start(name)
    try {
      return f()
    } finally {
      this.stop(name)
    }
  }

  /** Adds `by` to the counter `name`. */
  count(name: string, by = 1): void {
    this.#values.set(name, (this.#values.get(name) ?? 0) + by)
  }

  /** Takes over values measured elsewhere (a backend's timers), replacing those of the same name. */
  merge(values: Record<string, number> | undefined): void {
    for (const [name, value] of Object.entries(values ?? {})) this.#values.set(name, value)
  }

  /** Every timer and counter by name, in byte order as Go's JSON writes map keys (OPA's `m.All()`). */
  all(): Record<string, number> {
    return Object.fromEntries([...this.#values].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  }
}
