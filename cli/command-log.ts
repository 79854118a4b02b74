/**
 * The log flags of one-shot commands (`eval`, `exec`): `-l/--log-level`, `--log-format` and
 * `--log-timestamp-format`, as the reference tool reads them. Lines go to stderr so they never mix
 * with the result on stdout. Formats: `text` (`time level msg key=value`), `json` (one object a
 * line) and `json-pretty` (indented). The timestamp layout is a Go layout (`2006-01-02T15:04:05Z07:00`
 * or a name such as `RFC3339`), the default RFC 3339 with nanoseconds.
 */
import { type Command, Option } from 'commander'
import { formatTime, NAMED_LAYOUTS } from '../core/rego/builtins/go-layout.js'

export const COMMAND_LOG_LEVELS = ['debug', 'info', 'error'] as const
export type CommandLogLevel = (typeof COMMAND_LOG_LEVELS)[number]
export const COMMAND_LOG_FORMATS = ['text', 'json', 'json-pretty'] as const

/** The flag values, as commander hands them over. */
export interface CommandLogFlags {
  logLevel: CommandLogLevel
  logFormat: (typeof COMMAND_LOG_FORMATS)[number]
  logTimestampFormat?: string
}

/** Logs a message with fields at a level; lines below the chosen level are dropped. */
export interface CommandLog {
  debug(msg: string, fields?: Record<string, unknown>): void
  info(msg: string, fields?: Record<string, unknown>): void
  error(msg: string, fields?: Record<string, unknown>): void
}

const RFC3339_NANO = '2006-01-02T15:04:05.999999999Z07:00'

/** Adds the log flags to `command` with the reference tool's defaults for it. */
export function withLogFlags(
  command: Command,
  defaults: { level: CommandLogLevel; format: (typeof COMMAND_LOG_FORMATS)[number]; timestamp: boolean },
): Command {
  command
    .addOption(
      new Option('-l, --log-level <level>', 'log level (lines go to stderr)')
        .choices([...COMMAND_LOG_LEVELS])
        .default(defaults.level),
    )
    .addOption(
      new Option('--log-format <format>', 'log line format')
        .choices([...COMMAND_LOG_FORMATS])
        .default(defaults.format),
    )
  if (defaults.timestamp)
    command.option(
      '--log-timestamp-format <layout>',
      'Go time layout of log timestamps (default RFC 3339 with ns)',
    )
  return command
}

/**
 * The logger of `flags`, writing through `write` (stderr by default).
 * @throws Error when the timestamp layout cannot format a time.
 */
export function commandLog(
  flags: CommandLogFlags,
  write = (line: string) => process.stderr.write(line),
): CommandLog {
  const layout = NAMED_LAYOUTS[flags.logTimestampFormat ?? ''] ?? flags.logTimestampFormat ?? RFC3339_NANO
  const stamp = () => formatTime(BigInt(Date.now()) * 1_000_000n, 'UTC', layout)
  stamp() // a layout that cannot format fails here, before any work
  const rank = (level: CommandLogLevel) => COMMAND_LOG_LEVELS.indexOf(level)
  const emit = (level: CommandLogLevel, msg: string, fields: Record<string, unknown> = {}) => {
    if (rank(level) < rank(flags.logLevel)) return
    const time = stamp()
    if (flags.logFormat === 'text') {
      const extra = Object.entries(fields).map(
        ([k, v]) => ` ${k}=${typeof v === 'string' ? JSON.stringify(v) : JSON.stringify(v)}`,
      )
      write(`${time} ${level} ${msg}${extra.join('')}\n`)
      return
    }
    const line = { level, msg, time, ...fields }
    write(`${flags.logFormat === 'json-pretty' ? JSON.stringify(line, null, 2) : JSON.stringify(line)}\n`)
  }
  return {
    debug: (msg, fields) => emit('debug', msg, fields),
    info: (msg, fields) => emit('info', msg, fields),
    error: (msg, fields) => emit('error', msg, fields),
  }
}
