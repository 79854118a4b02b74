/**
 * The reference tool's licence flags. regent needs no licence, but scripts written for the
 * reference pass these flags; failing them on an unknown option would break those scripts. So
 * every command the spec gives a licence flag to accepts it, and using one prints a single line
 * on stderr saying it has no effect.
 */
import { type Command, Option } from 'commander'

type LicenseFlag = 'key' | 'token' | 'no-fallback' | 'discovery-timeout' | 'no-discovery-check'

/** Which licence flags each command takes, as the spec's tables list them (variant A). */
export const LICENSE_FLAGS: Readonly<Record<string, readonly LicenseFlag[]>> = {
  eval: ['key', 'token'],
  exec: ['key', 'token', 'no-fallback'],
  license: ['key', 'token'],
  run: ['key', 'token', 'no-fallback', 'discovery-timeout', 'no-discovery-check'],
  test: ['key', 'token'],
}

const OPTIONS: Readonly<Record<LicenseFlag, () => Option>> = {
  key: () => new Option('--license-key <file>', 'accepted for compatibility; regent needs no license'),
  token: () => new Option('--license-token <file>', 'accepted for compatibility; regent needs no license'),
  'no-fallback': () =>
    new Option('--no-license-fallback', 'accepted for compatibility; regent needs no license'),
  'discovery-timeout': () =>
    new Option(
      '--license-discovery-timeout <seconds>',
      'accepted for compatibility; regent needs no license',
    ).default('30'),
  'no-discovery-check': () =>
    new Option('--no-discovery-license-check', 'accepted for compatibility; regent needs no license'),
}

/** The one line printed when licence flags are used (`flags` as the user wrote them). */
export function licenseNotice(flags: readonly string[]): string {
  return `regent: ${flags.join(', ')} ignored: regent needs no license\n`
}

/**
 * Adds the licence flags the spec gives `command` (looked up by its name) and a hook that prints
 * the notice when any of them was given on the command line. Subcommands are left alone: the
 * spec gives `license trial` and `test bootstrap` none.
 */
export function acceptLicenseFlags(command: Command): Command {
  const flags = LICENSE_FLAGS[command.name()]
  if (!flags) return command
  const added = flags.map((f) => OPTIONS[f]())
  for (const option of added) command.addOption(option)
  command.hook('preAction', (self, actionCommand) => {
    if (actionCommand !== self) return
    const used = added
      .filter((o) => self.getOptionValueSource(o.attributeName()) === 'cli')
      .map((o) => o.long as string)
    if (used.length > 0) process.stderr.write(licenseNotice(used))
  })
  return command
}
