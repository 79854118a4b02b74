/**
 * Flags shared by `regent test bootstrap` and `regent test new`: where policies are, and the
 * management-service connection flags of the reference tool. The reference downloads libraries
 * from its service before generating; regent generates from local files only, so `--url`,
 * `--secret-file` and `--styra-config` are accepted with a one-line notice, and `--libraries`
 * names a local folder of library policies that is loaded (never written to) when it exists.
 */
import { existsSync } from 'node:fs'
import { type Command, Option } from 'commander'
import { type LoadedPolicy, loadPolicy } from '../../core/bundle/policy-files.js'
import { RegoErrors } from '../../core/rego/errors.js'
import { compilePolicy } from '../../core/rego/eval/policy.js'
import { collect } from '../query-options.js'

export interface GenerateOptions {
  data: string[]
  force?: boolean
  ignore: string[]
  libraries: string
  logFormat: 'text' | 'json' | 'json-pretty'
  logLevel: 'debug' | 'info' | 'error'
  secretFile?: string
  styraConfig?: string
  url?: string
  entrypoint?: string[]
}

/** Adds the shared flags to `command`. */
export function withGenerateOptions(command: Command): Command {
  return command
    .option('-d, --data <path>', 'policy files or directories (repeatable; default: .)', collect, [])
    .option('--ignore <glob>', 'file names to skip while loading', collect, [])
    .option('--libraries <dir>', 'folder of library policies loaded alongside', '.styra/include')
    .addOption(
      new Option('--log-format <format>', 'log format')
        .choices(['text', 'json', 'json-pretty'])
        .default('text'),
    )
    .addOption(
      new Option('--log-level <level>', 'log level').choices(['debug', 'info', 'error']).default('info'),
    )
    .option('--secret-file <file>', 'service API token file (not used: regent generates from local files)')
    .option('--styra-config <file>', 'service config file (not used: regent generates from local files)')
    .option('--url <url>', 'service URL (not used: regent generates from local files)')
}

const LEVELS = { debug: 0, info: 1, error: 2 } as const

/** Writes a log line to stderr when `level` is at or above `--log-level`. */
export function log(options: GenerateOptions, level: keyof typeof LEVELS, msg: string): void {
  if (LEVELS[level] < LEVELS[options.logLevel]) return
  if (options.logFormat === 'text') {
    process.stderr.write(`${msg}\n`)
    return
  }
  const entry = { level, msg, time: new Date().toISOString() }
  process.stderr.write(
    `${JSON.stringify(entry, null, options.logFormat === 'json-pretty' ? 2 : undefined)}\n`,
  )
}

/** Prints the one-line notice for service flags that have no effect. */
export function noticeServiceFlags(command: Command): void {
  const used = ['url', 'secretFile', 'styraConfig']
    .filter((k) => command.getOptionValueSource(k) === 'cli')
    .map((k) => `--${k.replace(/[A-Z]/g, (c) => `-${c.toLowerCase()}`)}`)
  if (used.length > 0) {
    process.stderr.write(
      `regent: ${used.join(', ')} ignored: test stubs are generated from local files only\n`,
    )
  }
}

/** The policies to generate from (and the libraries), compiled once to report errors early. */
export async function loadForGeneration(
  options: GenerateOptions,
): Promise<{ loaded: LoadedPolicy; libraries: string[] }> {
  const paths = options.data.length > 0 ? options.data : ['.']
  const libraries = existsSync(options.libraries) ? [options.libraries] : []
  const loaded = await loadPolicy({ paths: [...paths, ...libraries], ignore: options.ignore })
  compilePolicy(loaded.modules, loaded.data, { tests: true })
  return { loaded, libraries }
}

/** The message of a load or compile failure, as `regent test` prints it. */
export function failureText(err: unknown): string {
  return err instanceof RegoErrors ? err.toString() : (err as Error).message
}
