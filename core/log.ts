/**
 * Logging: pino JSON lines (one `msg` per event, details in fields), pretty-printed only when
 * stdout is a terminal. The level comes from `REGENT_LOG_LEVEL`, else the config, else `info`.
 */
import { createRequire } from 'node:module'
import pino, { type Logger } from 'pino'

export type { Logger } from 'pino'

export const LOG_LEVELS = ['trace', 'debug', 'info', 'warn', 'error', 'fatal', 'silent'] as const
export type LogLevel = (typeof LOG_LEVELS)[number]

export interface LoggerOptions {
  level?: LogLevel
  /** Where lines go; defaults to stdout. Tests pass a stream to read them back. */
  destination?: NodeJS.WritableStream
  /** Pretty output; defaults to whether stdout is a TTY. */
  pretty?: boolean
}

/** Creates the process logger. */
export function createLogger(options: LoggerOptions = {}): Logger {
  const fromEnv = process.env.REGENT_LOG_LEVEL as LogLevel | undefined
  const level = fromEnv && LOG_LEVELS.includes(fromEnv) ? fromEnv : (options.level ?? 'info')
  const base = {
    level,
    base: { pid: process.pid },
    // Tokens must never reach a log line, whoever logs a request or a config.
    redact: {
      paths: ['headers.authorization', 'req.headers.authorization', '*.token', 'token', '*.credentials'],
      censor: '[redacted]',
    },
  }
  if (options.destination) return pino(base, options.destination)
  if ((options.pretty ?? process.stdout.isTTY) && prettyAvailable()) {
    return pino({ ...base, transport: { target: 'pino-pretty', options: { colorize: true } } })
  }
  return pino(base)
}

// pino-pretty is a development dependency: the production image logs JSON even on a terminal.
function prettyAvailable(): boolean {
  try {
    createRequire(import.meta.url).resolve('pino-pretty')
    return true
  } catch {
    return false
  }
}
