/**
 * Whether a store's disk takes writes, for readiness: a write that fails because the disk is
 * full (or the file cannot be written at all) makes the process not ready, with the reason,
 * until a write succeeds again. While it is not ready, a small probe write is tried every
 * second, so readiness recovers once space is freed even if no client writes meanwhile.
 */
import type { Logger } from 'pino'

/** Error codes that mean "the file cannot be written", not "busy" or "a bug". */
const CANNOT_WRITE = /^(SQLITE_(FULL|IOERR|READONLY)|ENOSPC|EROFS|EIO)/

/** How often a probe write is tried while writes fail. */
export const PROBE_INTERVAL_MS = 1000

/** Whether `err` says the disk (or file) cannot be written. */
export function isCannotWrite(err: unknown): boolean {
  const code = (err as { code?: unknown } | undefined)?.code
  return typeof code === 'string' && CANNOT_WRITE.test(code)
}

export interface WriteHealthOptions {
  /** What is written, for messages: e.g. `the decision-log buffer /var/lib/regent/decision-logs.db`. */
  what: string
  /** What clients get meanwhile, for the readiness reason: e.g. `intake answers 503`. */
  meanwhile: string
  /** A small write that fails as a real one would. */
  probe: () => Promise<unknown>
  logger: Logger
}

/** See the module comment. */
export class WriteHealth {
  private reason: string | undefined
  private timer: NodeJS.Timeout | undefined
  private probing = false

  constructor(private readonly options: WriteHealthOptions) {}

  /** Why writes fail, or undefined while they succeed. */
  get failure(): string | undefined {
    return this.reason
  }

  /** A write failed; counts only when the error says the disk cannot be written. */
  failed(error: { code?: string; message: string }): void {
    if (!isCannotWrite(error)) return
    const { what, meanwhile, logger } = this.options
    const first = this.reason === undefined
    this.reason = `${what} cannot be written (${error.code}: ${error.message}); ${meanwhile} until a write succeeds`
    if (!first) return
    // One line, no stack: a full disk is an operating condition, not a bug.
    logger.warn({ what, code: error.code, reason: error.message }, 'storage cannot be written; not ready')
    this.timer = setInterval(() => this.runProbe(), PROBE_INTERVAL_MS)
    this.timer.unref()
  }

  /** A write succeeded: ready again. */
  succeeded(): void {
    if (this.reason === undefined) return
    this.reason = undefined
    this.close()
    this.options.logger.info({ what: this.options.what }, 'storage can be written again; ready')
  }

  /** Stops probing (the store is closing). */
  close(): void {
    clearInterval(this.timer)
    this.timer = undefined
  }

  private runProbe(): void {
    if (this.probing) return
    this.probing = true
    this.options
      .probe()
      .then(
        () => this.succeeded(),
        (err: Error & { code?: string }) => this.failed(err),
      )
      .finally(() => {
        this.probing = false
      })
  }
}
