/** Nanosecond timers for `?metrics`, named as OPA names them (`timer_rego_partial_eval_ns`, …). */
export class Timers {
  readonly #started = new Map<string, bigint>()
  readonly #totals = new Map<string, number>()

  /** Starts (or restarts) timer `name`. */
  start(name: string): void {
    this.#started.set(name, process.hrtime.bigint())
  }

  /** Stops timer `name`, adding the elapsed time to its total. */
  stop(name: string): void {
    const started = this.#started.get(name)
    if (started === undefined) return
    this.#started.delete(name)
    this.#totals.set(name, (this.#totals.get(name) ?? 0) + Number(process.hrtime.bigint() - started))
  }

  /** Adds timers measured elsewhere (the backend's). */
  merge(metrics: Record<string, number> | undefined): void {
    for (const [name, value] of Object.entries(metrics ?? {})) this.#totals.set(name, value)
  }

  /** The totals, sorted by name, when `wanted`; else undefined. */
  report(wanted: boolean): Record<string, number> | undefined {
    if (!wanted) return undefined
    return Object.fromEntries([...this.#totals.entries()].sort(([a], [b]) => a.localeCompare(b)))
  }
}
