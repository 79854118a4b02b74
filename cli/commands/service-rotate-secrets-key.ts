/**
 * `regent service rotate-secrets-key [-c FILE] [--data-dir DIR]`: seals every stored secret
 * value with a new key (service/secrets/rotation.ts says how, docs/secrets.md when to run it).
 * It opens the service's database itself, so it runs beside a running service (SQLite WAL,
 * PostgreSQL) or without one; a running service re-reads the key file and follows.
 */
import { join } from 'node:path'
import { Command } from 'commander'
import { ConfigError, loadConfig } from '../../core/config.js'
import { openSecretKeySource } from '../../service/secrets/key-source.js'
import { SecretKeyError } from '../../service/secrets/keyring.js'
import { rotateSecretsKey } from '../../service/secrets/rotation.js'
import { ServiceStore } from '../../store/service/index.js'

interface ServiceOptions {
  config?: string
  dataDir: string
}

/** The `rotate-secrets-key` subcommand of `regent service`. */
export function rotateSecretsKeyCommand(): Command {
  return new Command('rotate-secrets-key')
    .description('seal every stored secret with a new key, then drop the old key (docs/secrets.md)')
    .action(async (_options: unknown, command: Command) => {
      process.exitCode = await rotate(command.optsWithGlobals<ServiceOptions>())
    })
}

async function rotate(options: ServiceOptions): Promise<number> {
  const fail = (message: string) => {
    process.stderr.write(`regent service rotate-secrets-key: ${message}\n`)
    return 1
  }
  // Loaded here, not at the top: `regent service` itself must not pay for it.
  const { serviceConfigFileSchema } = await import('./service.js')
  let store: ServiceStore | undefined
  try {
    const config = loadConfig(options.config, serviceConfigFileSchema).service
    const keys = openSecretKeySource({ keyFile: config.secrets.key_file, dataDir: options.dataDir })
    store = await ServiceStore.open({
      url: config.database.url ?? join(options.dataDir, 'service.db'),
      poolSize: 2,
    })
    const report = await rotateSecretsKey({ store, keys })
    const lines = [
      `keys: ${keys.description}`,
      `active key: ${report.activeKeyId}${report.generated ? ' (generated now)' : ''}`,
      `re-sealed: ${report.resealed} secret value(s)`,
    ]
    for (const { id, reason } of report.unreadable) lines.push(`cannot open secret ${id}: ${reason}`)
    if (report.droppedKeyIds.length > 0) lines.push(`dropped old key(s): ${report.droppedKeyIds.join(', ')}`)
    if (report.removableKeyIds.length > 0) {
      lines.push(
        `every value is sealed with ${report.activeKeyId}: remove ${report.removableKeyIds.join(', ')} from REGENT_SECRETS_KEY`,
      )
    }
    process.stdout.write(`${lines.join('\n')}\n`)
    if (report.unreadable.length > 0) {
      return fail(
        'some values could not be opened; the old keys are kept (fix or delete those secrets and run again)',
      )
    }
    return 0
  } catch (err) {
    if (err instanceof ConfigError || err instanceof SecretKeyError) return fail(err.message)
    return fail((err as Error).message)
  } finally {
    await store?.close()
  }
}
