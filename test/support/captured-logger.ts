/**
 * A pino logger whose JSON lines are kept in memory, for tests that assert what a server logged
 * (one line without a stack for an expected refusal, a warning naming a path and its mode).
 */
import { Writable } from 'node:stream'
import { type Logger, pino } from 'pino'

/** The logger and the lines it wrote so far (empty `lines` with `lines.length = 0`). */
export function capturedLogger(level = 'info'): { logger: Logger; lines: string[] } {
  const lines: string[] = []
  const logger = pino(
    { level },
    new Writable({
      write(chunk, _encoding, done) {
        lines.push(...String(chunk).split('\n').filter(Boolean))
        done()
      },
    }),
  )
  return { logger, lines }
}
