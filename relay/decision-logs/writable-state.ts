/**
 * Whether the decision-log buffer can be written, for readiness: a write that fails because the
 * disk is full (or the file cannot be written at all) makes the relay not ready, with the reason,
 * until a write succeeds again. While it is not ready, a small probe write is tried every second,
 * so readiness recovers once space is freed even if no agent sends anything meanwhile.
 */
import type { Logger } from 'pino'

/** SQLite codes that mean "the file cannot be written", not "busy" or "a bug". */
const CANNOT_WRITE = /^SQLITE_(FULL|IOERR|READONLY)/

/** How often a probe write is tried while the buffer cannot be written. */
export const PROBE_INTERVAL_MS = 1000

export class WritableState {
  private reason: string | undefined
  private timer: NodeJS.Timeout | undefined
  private probing = false

  constructor(
    /** A small write that throws as an append would (see DecisionBuffer.probeWrite). */
    private readonly probe: () => Promise<unknown>,
    private readonly logger: Logger,
    private readonly path: string,
  ) {}

  /** Why the buffer cannot be written, or undefined while it can. */
  get failure(): string | undefined {
    return this.reason
  }

  /** A write failed; counts only when its code says the file cannot be written. */
  failed(error: { code?: string; message: string }): void {
    const code = error.code ?? ''
    if (!CANNOT_WRITE.test(code)) return
    const first = this.reason === undefined
    this.reason = `the decision-log buffer ${this.path} cannot be written (${code}: ${error.message}); intake answers 503 until a write succeeds`
    if (!first) return
    // One line, no stack: a full disk is an operating condition, not a bug.
    this.logger.warn(
      { path: this.path, code, reason: error.message },
      'decision-log buffer cannot be written; not ready',
    )
    this.timer = setInterval(() => this.runProbe(), PROBE_INTERVAL_MS)
    this.timer.unref()
  }

  /** A write succeeded: ready again. */
  succeeded(): void {
    if (this.reason === undefined) return
    this.reason = undefined
    clearInterval(this.timer)
    this.timer = undefined
    this.logger.info({ path: this.path }, 'decision-log buffer can be written again; ready')
  }

  /** Stops probing (the buffer is closing). */
  close(): void {
    clearInterval(this.timer)
    this.timer = undefined
  }

  private runProbe(): void {
    if (this.probing) return
    this.probing = true
    // The outcome reaches failed()/succeeded() through the buffer's reply handling.
    this.probe()
      .catch(() => {})
      .finally(() => {
        this.probing = false
      })
  }
}
