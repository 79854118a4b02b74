/**
 * A step run again and again in the background, never two at once: each step resolves to the
 * delay before the next one (0: at once, on the next turn of the event loop). The timer does not
 * keep the process alive, and `stop` waits for the step in progress. The step handles its own
 * errors (a rejected step ends the loop). `wake` runs the next step now rather than after its
 * delay (after the step in progress, if one is running); before `start` it does nothing.
 */
export class BackgroundLoop {
  private timer: NodeJS.Timeout | undefined
  private running: Promise<unknown> | undefined
  private started = false
  private stopped = false
  private woken = false

  constructor(private readonly step: () => Promise<number>) {}

  /** Starts: the first step right away. */
  start(): void {
    this.started = true
    this.schedule(0)
  }

  /** Stops after the step in progress, if any. */
  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await this.running
  }

  /** Runs the next step at once instead of after its delay; during a step, right after it. */
  wake(): void {
    // A loop never started stays so: a datasource run on demand (scheduler.ts) wakes the loop
    // when it ends, and that must not start ticking on a replica that was not started.
    if (!this.started || this.stopped) return
    if (this.running) {
      this.woken = true
      return
    }
    clearTimeout(this.timer)
    this.schedule(0)
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return
    this.timer = setTimeout(() => {
      this.woken = false
      this.running = this.step().then((next) => {
        this.running = undefined
        this.schedule(this.woken ? 0 : next)
      })
    }, delayMs)
    this.timer.unref()
  }
}
