/**
 * `regent relay -c FILE [--addr HOST:PORT] [--data-dir DIR]`: the sidecar beside OPA agents.
 * The config file is OPA's format for the upstream (the one a control plane generates for an
 * agent) plus a `relay:` section; flags override the file.
 *
 * Parts mounted into the relay register here: an extension factory in RELAY_EXTENSIONS (routes,
 * start/stop, status) and extra subcommands in RELAY_SUBCOMMANDS (e.g. `regent relay logs
 * redrive`). A subcommand reads the relay's `-c` through `command.optsWithGlobals()`.
 */
import { Command } from 'commander'
import { ConfigError, loadConfig } from '../../core/config.js'
import { stopOnSignals } from '../../core/http/index.js'
import { createLogger } from '../../core/log.js'
import { compileExtension } from '../../relay/compile/extension.js'
import { decisionLogsExtension } from '../../relay/decision-logs/index.js'
import {
  type RelayConfig,
  type RelayExtensionFactory,
  relayConfigSchema,
  startRelay,
} from '../../relay/index.js'
import { REGENT_VERSION } from '../version-info.js'
import { relayLogsCommand } from './relay-logs.js'

/** Parts mounted into every relay this CLI starts (the decision-log intake registers here). */
export const RELAY_EXTENSIONS: RelayExtensionFactory[] = [decisionLogsExtension, compileExtension]

/** Subcommands of `regent relay` (one line each). */
export const RELAY_SUBCOMMANDS: Array<() => Command> = [relayLogsCommand]

/** Options of `regent relay`. */
export interface RelayCommandOptions {
  config: string
  addr?: string
  dataDir?: string
}

/** Reads and validates a relay config file; ConfigError names each bad key. */
export function loadRelayConfig(path: string, env: NodeJS.ProcessEnv = process.env): RelayConfig {
  return loadConfig(path, relayConfigSchema, env)
}

/** Builds the `relay` command. */
export function relayCommand(): Command {
  const command = new Command('relay')
    .description('run the relay: serves bundles to OPA agents, takes their status and decision logs')
    // Not a commander "required" option: required options of a parent are demanded by its
    // subcommands too, and `regent relay logs status --data-dir DIR` needs no config.
    .option(
      '-c, --config <file>',
      'relay config (OPA format for the upstream, plus a relay: section; required)',
    )
    .option(
      '--addr <host:port>',
      'listen address (default: relay.addr, else $REGENT_LISTEN_HOST:8282 or 127.0.0.1:8282)',
    )
    .option(
      '--data-dir <dir>',
      'storage folder (default: relay.storage.dir, else $REGENT_DATA_DIR/relay or ./.regent/relay)',
    )
    .action(async (options: Partial<RelayCommandOptions>, command: Command) => {
      if (options.config === undefined) {
        command.error("error: required option '-c, --config <file>' not specified", {
          exitCode: 2,
          code: 'commander.missingMandatoryOptionValue',
        })
      }
      await runRelay({ ...options, config: options.config })
    })
  for (const make of RELAY_SUBCOMMANDS) command.addCommand(make())
  return command
}

async function runRelay(options: RelayCommandOptions): Promise<void> {
  let config: RelayConfig
  try {
    config = loadRelayConfig(options.config)
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    process.stderr.write(`regent relay: ${err.message}\n`)
    process.exitCode = 1
    return
  }
  const logger = createLogger({ level: config.log.level })
  let relay: Awaited<ReturnType<typeof startRelay>>
  try {
    relay = await startRelay({
      config,
      logger,
      addr: options.addr,
      dataDir: options.dataDir,
      version: REGENT_VERSION,
      extensions: RELAY_EXTENSIONS,
    })
  } catch (err) {
    logger.fatal({ err: (err as Error).message }, 'relay cannot start')
    process.stderr.write(`regent relay: ${(err as Error).message}\n`)
    process.exitCode = 1
    return
  }
  stopOnSignals(logger, () => relay.stop())
  // Stay alive until a signal: the server keeps the event loop busy.
}
