/**
 * `regent license` and `regent license trial`: the reference tool shows or requests a licence
 * here. regent has no licensed features, so both say so and exit 0, accepting the reference's
 * flags so that provisioning scripts keep running.
 */
import { Command } from 'commander'

/** What `regent license` prints. */
export const NO_LICENSE_NEEDED =
  'regent needs no license: every feature is available without a license key or token.'

/** Builds the `license` command with its `trial` subcommand. */
export function licenseCommand(): Command {
  const license = new Command('license')
    .description('show license details (regent needs no license)')
    .action(() => {
      process.stdout.write(`${NO_LICENSE_NEEDED}\n`)
    })
  license.addCommand(
    new Command('trial')
      .description('create a trial license (regent needs none)')
      .option('--company <name>', 'accepted for compatibility; ignored')
      .option('--country <name>', 'accepted for compatibility; ignored')
      .option('--email <address>', 'accepted for compatibility; ignored')
      .option('--first-name <name>', 'accepted for compatibility; ignored')
      .option('--last-name <name>', 'accepted for compatibility; ignored')
      .option('--key-only', 'print only the key (regent has none: prints nothing on stdout)')
      .action((options: { keyOnly?: boolean }) => {
        const line = 'regent needs no license, so there is no trial to create.\n'
        // With --key-only a script captures stdout as the key: leave it empty, explain on stderr.
        if (options.keyOnly) process.stderr.write(line)
        else process.stdout.write(line)
      }),
  )
  return license
}
