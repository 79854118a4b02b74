/**
 * Flags of `opa run` that regent accepts so that start-up scripts written for the reference keep
 * working, although they change nothing here. Like `regent eval -O` and
 * `--optimize-store-for-read-speed`, they are accepted silently and their help says why:
 * - `--disable-telemetry`: regent never reports usage or checks for new versions over the network,
 *   so there is nothing to turn off.
 * - `-O/--optimize <level>`: the optimization level of bundles OPA builds when loading; regent's
 *   evaluation gives the same results and speed at every level. A level that is not a whole number
 *   is still refused (exit 2), as `opa run` refuses it.
 * - `--optimize-store-for-read-speed`: regent keeps data as in-memory values, already read
 *   without copies.
 * - `--skip-known-schema-check`: OPA type-checks the `system.authz` policy against a built-in input
 *   schema; regent does no such check, so there is nothing to skip.
 */
import { type Command, Option } from 'commander'

/** The flags as commander parses them. */
export interface RunCompatFlags {
  disableTelemetry?: boolean
  optimize?: string
  optimizeStoreForReadSpeed?: boolean
  skipKnownSchemaCheck?: boolean
}

/** Declares the flags on `command` (the `run` command) and checks `-O` before it runs. */
export function addRunCompatOptions(command: Command): Command {
  return command
    .addOption(
      new Option(
        '--disable-telemetry',
        'accepted for compatibility; regent sends no telemetry and checks for no new versions',
      ),
    )
    .addOption(
      new Option(
        '-O, --optimize <level>',
        'accepted for compatibility; results are the same at every level',
      ).default('0'),
    )
    .addOption(
      new Option(
        '--optimize-store-for-read-speed',
        'accepted for compatibility; regent keeps data as in-memory values already read without copies',
      ),
    )
    .addOption(
      new Option(
        '--skip-known-schema-check',
        'accepted for compatibility; regent does not type-check system.authz against a known input schema',
      ),
    )
    .hook('preAction', (self, actionCommand) => {
      if (actionCommand !== self) return
      const level = (self.opts() as RunCompatFlags).optimize ?? '0'
      if (!/^\d+$/.test(level))
        self.error(`-O ${level}: expected a whole number`, { exitCode: 2, code: 'regent.usage' })
    })
}
