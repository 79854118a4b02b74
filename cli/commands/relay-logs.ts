/**
 * `regent relay logs status` and `regent relay logs redrive [ID...]`: look into and re-drive the
 * relay's decision-log buffer. They open the buffer file in the storage folder directly (SQLite
 * WAL lets them run beside a running relay, which notices their changes), so they work whether
 * the relay runs or not.
 */
import { existsSync } from 'node:fs'
import { join } from 'node:path'
import { Command, InvalidArgumentError } from 'commander'
import { ConfigError, loadConfig } from '../../core/config.js'
import { BUFFER_FILE_NAME, readDecisionLogsConfig } from '../../relay/decision-logs/index.js'
import { relayConfigSchema } from '../../relay/index.js'
import { DecisionBuffer } from '../../store/decision-buffer/index.js'

interface LogsOptions {
  config?: string
  dataDir?: string
  format?: string
}

/** The `logs` subcommand of `regent relay` (listed in RELAY_SUBCOMMANDS). */
export function relayLogsCommand(): Command {
  const logs = new Command('logs').description('inspect and re-drive the decision-log buffer')
  logs
    .command('status')
    .description('show buffered, in-flight and dead-lettered decision events')
    .option('-f, --format <format>', 'pretty or json', 'pretty')
    .option('--limit <n>', 'dead batches to list', positiveInt, 20)
    .action((options: { limit: number }, command: Command) => {
      withBuffer(command, (buffer, path) => {
        const stats = buffer.stats()
        const report = {
          path,
          events: stats.events,
          bytes: stats.bytes,
          oldest_undelivered:
            stats.oldestReceivedAt === null ? null : new Date(stats.oldestReceivedAt).toISOString(),
          in_flight: buffer.listInFlight(),
          dead_letter: {
            batches: stats.deadBatches,
            events: stats.deadEvents,
            bytes: stats.deadBytes,
            latest: buffer.listDeadBatches(options.limit).map((d) => ({
              ...d,
              deadAt: new Date(d.deadAt).toISOString(),
              firstReceivedAt: new Date(d.firstReceivedAt).toISOString(),
            })),
          },
        }
        if (formatOf(command) === 'json') {
          process.stdout.write(`${JSON.stringify(report, null, 2)}\n`)
          return
        }
        const lines = [
          `Buffer:       ${path}`,
          `Pending:      ${stats.events} events, ${stats.bytes} bytes`,
          `Oldest:       ${report.oldest_undelivered ?? '-'}`,
          `In flight:    ${report.in_flight.map((b) => `#${b.id} ${b.events} events, ${b.attempts} failed attempts${b.lastStatus ? ` (last ${b.lastStatus})` : ''}`).join('; ') || '-'}`,
          `Dead letter:  ${stats.deadBatches} batches, ${stats.deadEvents} events, ${stats.deadBytes} bytes`,
          ...report.dead_letter.latest.map(
            (d) =>
              `  #${d.id}  ${d.deadAt}  ${d.events} events  status ${d.status}  after ${d.attempts} attempts: ${d.reason}`,
          ),
        ]
        process.stdout.write(`${lines.join('\n')}\n`)
      })
    })
  logs
    .command('redrive')
    .description('move dead-lettered batches (all, or the IDs given) back into the upload queue')
    .argument('[ids...]', 'dead batch IDs (see `regent relay logs status`)')
    .action((ids: string[], _options: unknown, command: Command) => {
      const parsed = ids.map((id) => positiveInt(id))
      withBuffer(command, (buffer) => {
        const known = new Set(buffer.listDeadBatches(Number.MAX_SAFE_INTEGER).map((d) => d.id))
        const missing = parsed.filter((id) => !known.has(id))
        if (missing.length > 0) {
          process.stderr.write(`regent relay logs redrive: no dead batch ${missing.join(', ')}\n`)
          process.exitCode = 1
          return
        }
        const moved = buffer.redrive(parsed.length > 0 ? parsed : undefined)
        process.stdout.write(
          `re-drove ${moved.batches} batches (${moved.events} events) to the upload queue\n`,
        )
      })
    })
  return logs
}

function withBuffer(command: Command, use: (buffer: DecisionBuffer, path: string) => void): void {
  const options = command.optsWithGlobals<LogsOptions>()
  let path: string
  let sync: 'full' | 'normal' = 'full'
  let fallbackDir: string | undefined
  try {
    let dir = options.dataDir
    if (options.config !== undefined) {
      const config = loadConfig(options.config, relayConfigSchema)
      sync = readDecisionLogsConfig(config.relay.decision_logs).buffer.sync
      dir ??= config.relay.storage.dir
      fallbackDir = config.relay.storage.fallback_dir
    }
    if (dir === undefined) throw new InvalidArgumentError('give the relay config (-c FILE) or --data-dir DIR')
    path = join(dir, BUFFER_FILE_NAME)
    // A relay whose storage folder cannot be written keeps its buffer in relay.storage.fallback_dir.
    const fallback = fallbackDir === undefined ? undefined : join(fallbackDir, BUFFER_FILE_NAME)
    if (!existsSync(path) && fallback !== undefined && existsSync(fallback)) path = fallback
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    process.stderr.write(`regent relay logs: ${err.message}\n`)
    process.exitCode = 1
    return
  }
  if (!existsSync(path)) {
    process.stderr.write(`regent relay logs: no decision-log buffer at ${path}\n`)
    process.exitCode = 1
    return
  }
  // NOTE(decision-logs): beside a running relay this process must not recover its in-flight
  // batches nor quarantine the file; the relay does both when it starts.
  const buffer = DecisionBuffer.open({
    path,
    sync,
    maxBytes: Number.MAX_SAFE_INTEGER,
    overflow: 'backpressure',
    busyTimeoutMs: 5000,
    deadLetterMaxEvents: Number.MAX_SAFE_INTEGER,
    deadLetterMaxBytes: Number.MAX_SAFE_INTEGER,
    integrityCheck: 'off',
    recoverInFlight: false,
  })
  try {
    use(buffer, path)
  } finally {
    buffer.close()
  }
}

function formatOf(command: Command): string {
  const format = command.opts<LogsOptions>().format ?? 'pretty'
  if (format !== 'pretty' && format !== 'json')
    throw new InvalidArgumentError(`--format: expected pretty or json, got ${format}`)
  return format
}

function positiveInt(value: string): number {
  const n = Number(value)
  if (!Number.isInteger(n) || n <= 0)
    throw new InvalidArgumentError(`expected a positive integer, got "${value}"`)
  return n
}
