/**
 * `regent service [-c FILE] [--addr HOST:PORT] [--data-dir DIR]`: the management-service
 * companion. The config file holds `log:` and `service:` (see config.example.yaml); flags
 * override it. On first start with an empty database a generated administrator token is
 * printed once on stderr (set REGENT_ADMIN_TOKEN to choose it instead).
 */
import { Command } from 'commander'
import { z } from 'zod'
import { baseConfigSchema, ConfigError, loadConfig } from '../../core/config.js'
import { parseAddress, stopOnSignals } from '../../core/http/index.js'
import { createLogger } from '../../core/log.js'
import { defaultDataDir, defaultListenAddr } from '../../core/runtime-defaults.js'
import { serviceSectionSchema, startService } from '../../service/index.js'
import { rotateSecretsKeyCommand } from './service-rotate-secrets-key.js'

// One file may configure both processes: the service leaves the relay's sections to the relay.
const RELAY_KEYS = ['services', 'bundles', 'discovery', 'keys', 'labels', 'decision_logs', 'status', 'relay']

/** The schema of a `regent service` config file. */
export const serviceConfigFileSchema = baseConfigSchema.extend({
  service: serviceSectionSchema,
  ...Object.fromEntries(RELAY_KEYS.map((key) => [key, z.unknown().optional()])),
})

export type ServiceConfigFile = z.output<typeof serviceConfigFileSchema>

interface ServiceCommandOptions {
  config?: string
  addr: string
  dataDir: string
}

/** Builds the `service` command. */
export function serviceCommand(): Command {
  return (
    new Command('service')
      .description('run the management service: systems, tokens, policies, bundles, decision logs')
      .option('-c, --config <file>', 'config file with log: and service: sections')
      // REGENT_LISTEN_HOST and REGENT_DATA_DIR change these defaults (the image sets both).
      .option('--addr <host:port>', 'listen address', defaultListenAddr(8181))
      .option('--data-dir <dir>', 'folder for the SQLite database', defaultDataDir('service'))
      .action(async (options: ServiceCommandOptions, command: Command) => {
        try {
          parseAddress(options.addr)
        } catch (err) {
          command.error(`--addr: ${(err as Error).message}`, { exitCode: 2, code: 'regent.usage' })
        }
        await runService(options)
      })
      .addCommand(rotateSecretsKeyCommand())
  )
}

async function runService(options: ServiceCommandOptions): Promise<void> {
  let config: ServiceConfigFile
  try {
    config = loadConfig(options.config, serviceConfigFileSchema)
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    process.stderr.write(`regent service: ${err.message}\n`)
    process.exitCode = 1
    return
  }
  const logger = createLogger({ level: config.log.level })
  let service: Awaited<ReturnType<typeof startService>>
  try {
    service = await startService({
      config: config.service,
      logger,
      addr: options.addr,
      dataDir: options.dataDir,
    })
  } catch (err) {
    logger.fatal({ err: (err as Error).message }, 'service cannot start')
    process.stderr.write(`regent service: ${(err as Error).message}\n`)
    process.exitCode = 1
    return
  }
  if (service.adminToken) {
    process.stderr.write(
      `regent service: created the administrator token "admin"; it is shown only this once:\n${service.adminToken}\n`,
    )
  }
  stopOnSignals(logger, () => service.stop())
}
