/**
 * What `regent lint` reads from disk before the engine runs: the config file (`-c`, else the
 * nearest `.regal/config.yaml` above the first path), the `.rego` files under the paths, and the
 * custom rules (`-r` paths, plus `.regal/rules/` beside the config file, as Regal loads them).
 */
import { existsSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { dirname, join } from 'node:path'
import { filesUnder } from '../../core/bundle/policy-files.js'
import { emptyConfig, findConfigFile, type LintConfig, readConfigFile } from '../../core/lint/config.js'

/** The config to use and where it came from (undefined: none found). */
export function loadLintConfig(explicit: string | undefined, paths: readonly string[]): LintConfig {
  if (explicit) return readConfigFile(explicit)
  const first = paths[0] ?? '.'
  const start = existsSync(first) && statSync(first).isDirectory() ? first : dirname(first)
  const found = findConfigFile(start)
  return found ? readConfigFile(found) : emptyConfig()
}

/** Every `.rego` file under `paths`, with its text. */
export async function readRegoFiles(
  paths: readonly string[],
): Promise<Array<{ file: string; text: string }>> {
  const files = await filesUnder([...paths], (p) => p.endsWith('.rego'), [])
  return Promise.all(files.map(async (file) => ({ file, text: await readFile(file, 'utf8') })))
}

/** The custom rule sources: `-r` paths and `.regal/rules/` next to the config file. */
export async function readCustomRuleFiles(
  rulePaths: readonly string[],
  config: LintConfig,
): Promise<Array<{ file: string; text: string }>> {
  const paths = [...rulePaths]
  if (config.path) {
    const beside = join(dirname(config.path), 'rules')
    if (dirname(config.path).endsWith('.regal') && existsSync(beside)) paths.push(beside)
  }
  return paths.length > 0 ? readRegoFiles(paths) : []
}
