/** `regent version`: regent's version, Node's version and the platform. */
import { Command } from 'commander'
import { REGENT_VERSION } from '../version-info.js'

export function versionCommand(): Command {
  return new Command('version')
    .description("print regent's version, Node.js version and platform")
    .option('-f, --format <format>', 'pretty or json', 'pretty')
    .action((options: { format: string }) => {
      const info = {
        version: REGENT_VERSION,
        node: process.versions.node,
        platform: `${process.platform}/${process.arch}`,
      }
      if (options.format === 'json') {
        process.stdout.write(`${JSON.stringify(info, null, 2)}\n`)
        return
      }
      process.stdout.write(`Version: ${info.version}\nNode.js: ${info.node}\nPlatform: ${info.platform}\n`)
    })
}
