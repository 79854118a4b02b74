/**
 * The logger of `regent run -s` with OPA's log flags: `--log-format json` (one JSON object a line,
 * the default), `json-pretty` (each object indented), `text` (logrus-style `key=value` lines:
 * `time="…" level=info msg="listening" addr=…`), `-l/--log-level`, and `--log-timestamp-format`
 * (a Go layout for the `time` field; pino's epoch milliseconds otherwise). Lines go through pino
 * first, so redaction of tokens applies to every format.
 */
import { Writable } from 'node:stream'
import { createLogger, type Logger, type LogLevel } from '../core/log.js'
import { formatTime } from '../core/rego/builtins/go-layout.js'

export type LogFormat = 'json' | 'json-pretty' | 'text'

export interface AgentLogOptions {
  level: LogLevel
  /** Undefined: regent's default (JSON, pretty on a terminal). */
  format?: LogFormat
  timestampFormat?: string
  /** Where lines go (default stdout). */
  output?: NodeJS.WritableStream
}

const LEVEL_NAMES: Record<number, string> = {
  10: 'trace',
  20: 'debug',
  30: 'info',
  40: 'warn',
  50: 'error',
  60: 'fatal',
}

/** The logger for the flags. */
export function createAgentLogger(options: AgentLogOptions): Logger {
  const output = options.output ?? process.stdout
  if (options.format === undefined && options.timestampFormat === undefined) {
    return createLogger({ level: options.level, ...(options.output ? { destination: output } : {}) })
  }
  if ((options.format ?? 'json') === 'json' && options.timestampFormat === undefined) {
    return createLogger({ level: options.level, destination: output })
  }
  const format = options.format ?? 'json'
  const destination = new Writable({
    write(chunk: Buffer, _encoding, done) {
      for (const line of chunk.toString('utf8').split('\n')) {
        if (line !== '') output.write(`${formatLine(line, format, options.timestampFormat)}\n`)
      }
      done()
    },
  })
  return createLogger({ level: options.level, destination })
}

/** One pino JSON line in the chosen format. */
export function formatLine(line: string, format: LogFormat, timestampFormat: string | undefined): string {
  let entry: Record<string, unknown>
  try {
    entry = JSON.parse(line) as Record<string, unknown>
  } catch {
    return line
  }
  if (timestampFormat !== undefined && typeof entry.time === 'number') {
    // Go's layouts as `time.format` writes them, in the process's time zone (Go's time.Now()).
    entry.time = formatTime(BigInt(entry.time) * 1_000_000n, 'Local', timestampFormat)
  }
  if (format === 'json') return JSON.stringify(entry)
  if (typeof entry.level === 'number') entry.level = LEVEL_NAMES[entry.level] ?? entry.level
  if (format === 'json-pretty') return JSON.stringify(entry, null, 2)
  const { time, level, msg, ...rest } = entry
  const fields: Array<[string, unknown]> = [
    ['time', typeof time === 'number' ? new Date(time).toISOString() : time],
    ['level', level],
    ['msg', msg],
    ...Object.entries(rest),
  ]
  return fields
    .filter(([, v]) => v !== undefined)
    .map(([k, v]) => `${k}=${textValue(v)}`)
    .join(' ')
}

// logrus quotes a value when it holds anything beyond letters, digits and -._/@^+.
function textValue(value: unknown): string {
  const text = typeof value === 'string' ? value : JSON.stringify(value)
  return /^[A-Za-z0-9\-._/@^+]+$/.test(text) ? text : JSON.stringify(text)
}
