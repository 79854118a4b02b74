/**
 * A step run again and again in the background, never two at once: each step resolves to the
 * delay before the next one (0: at once, on the next turn of the event loop). The timer does not
 * keep the process alive, and `stop` waits for the step in progress. The step handles its own
 * errors (a rejected step ends the loop).
 */
export class BackgroundLoop {
  private timer: NodeJS.Timeout | undefined
  private running: Promise<unknown> | undefined
  private stopped = false

  constructor(private readonly step: () => Promise<number>) {}

  /** Starts: the first step right away. */
  start(): void {
    this.schedule(0)
  }

  /** Stops after the step in progress, if any. */
  async stop(): Promise<void> {
    this.stopped = true
    clearTimeout(this.timer)
    await this.running
  }

  private schedule(delayMs: number): void {
    if (this.stopped) return
    this.timer = setTimeout(() => {
      this.running = this.step().then((next) => {
        this.running = undefined
        this.schedule(next)
      })
    }, delayMs)
    this.timer.unref()
  }
}
