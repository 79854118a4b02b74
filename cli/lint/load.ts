/**
 * What `regent lint` reads from disk before the engine runs: the config file (`-c`, else the
 * nearest `.regal/config.yaml` above the first path), the `.rego` files under the paths, and the
 * custom rules (`-r` paths, plus `.regal/rules/` beside the config file, as Regal loads them).
 */
import { existsSync, statSync } from 'node:fs'
import { readFile } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import { filesUnder } from '../../core/bundle/policy-files.js'
import { emptyConfig, findConfigFile, type LintConfig, readConfigFile } from '../../core/lint/config.js'

/** The config to use and where it came from (undefined: none found). */
export function loadLintConfig(explicit: string | undefined, paths: readonly string[]): LintConfig {
  if (explicit) return readConfigFile(explicit)
  const found = findConfigFile(startDirectory(paths))
  return found ? readConfigFile(found) : emptyConfig()
}

/**
 * Every `.rego` file under `paths`, with its text. `ignore` holds base-name globs (the lint run
 * leaves out `.regal` directories, whose custom rules are not policy).
 */
export async function readRegoFiles(
  paths: readonly string[],
  ignore: readonly string[] = [],
): Promise<Array<{ file: string; text: string }>> {
  const files = await filesUnder([...paths], (p) => p.endsWith('.rego'), ignore)
  return Promise.all(files.map(async (file) => ({ file, text: await readFile(file, 'utf8') })))
}

/**
 * The custom rule sources: `-r` paths, and the `rules/` folder of the nearest `.regal` directory
 * at or above the first linted path (as Regal loads it, with or without a config file there).
 */
export async function readCustomRuleFiles(
  rulePaths: readonly string[],
  lintPaths: readonly string[],
): Promise<Array<{ file: string; text: string }>> {
  const paths = [...rulePaths]
  let dir = resolve(startDirectory(lintPaths))
  for (let depth = 0; depth < 64; depth++) {
    const rules = join(dir, '.regal', 'rules')
    if (existsSync(rules)) {
      paths.push(rules)
      break
    }
    const parent = dirname(dir)
    if (parent === dir) break
    dir = parent
  }
  return paths.length > 0 ? readRegoFiles(paths) : []
}

function startDirectory(paths: readonly string[]): string {
  const first = paths[0] ?? '.'
  return existsSync(first) && statSync(first).isDirectory() ? first : dirname(first)
}
