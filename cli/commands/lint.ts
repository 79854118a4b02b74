/**
 * `regent lint <path>...`: lints Rego files with regent's rule set (docs/lint.md), custom Rego rules
 * (`-r`) and the `filtering` category (what `/v1/compile` would refuse). Reads Regal's
 * `.regal/config.yaml`; exit codes as Regal's: 0 clean, 3 with violations at level error, 2 with
 * warnings when `--fail-level warning`, 1 when the run itself fails (config, parse errors, timeout).
 */
import { writeFile } from 'node:fs/promises'
import { Command, Option } from 'commander'
import { BUILTIN_LINT_RULES } from '../../core/lint/builtin-rules.js'
import type { RuleSelection } from '../../core/lint/config.js'
import { lint } from '../../core/lint/engine.js'
import type { LintRule } from '../../core/lint/types.js'
import { parseDuration } from '../../core/rego/builtins/go-time.js'
import { RegoErrors } from '../../core/rego/errors.js'
import { FILTERING_RULES } from '../lint/filtering-rules.js'
import { loadLintConfig, readCustomRuleFiles, readRegoFiles } from '../lint/load.js'
import { REPORT_FORMATS, type ReportFormat, renderReport } from '../lint/reporters.js'
import { collect } from '../query-options.js'

/** Exit code when violations at level error were found (Regal's). */
export const LINT_ERRORS_EXIT = 3
/** Exit code when only warnings were found and `--fail-level warning` was given (Regal's). */
export const LINT_WARNINGS_EXIT = 2

interface LintOptions {
  configFile?: string
  debug?: boolean
  disable: string[]
  disableAll?: boolean
  disableCategory: string[]
  enable: string[]
  enableAll?: boolean
  enableCategory: string[]
  enablePrint?: boolean
  failLevel: 'error' | 'warning'
  format: ReportFormat
  ignoreFiles: string[]
  instrument?: boolean
  metrics?: boolean
  color: boolean
  outputFile?: string
  pprof?: boolean
  profile?: boolean
  rules: string[]
  timeout?: string
}

// Flags that only make sense for Regal's Go and Rego internals: accepted, explained in one line.
const NOTICES: Array<[keyof LintOptions, string]> = [
  [
    'profile',
    '--profile has no effect: regent runs its lint rules as TypeScript; use --metrics for per-rule timings',
  ],
  ['pprof', '--pprof has no effect: regent is not a Go program; use node --cpu-prof for a CPU profile'],
  ['instrument', '--instrument reports per-rule timings through --metrics (implied)'],
]

/** `-d a,b -d c` → `[a, b, c]`. */
const list = (values: string[]) =>
  values
    .flatMap((v) => v.split(','))
    .map((v) => v.trim())
    .filter(Boolean)

/** Builds the `lint` command. */
export function lintCommand(): Command {
  return new Command('lint')
    .description('lint Rego source files (rules: docs/lint.md; config: .regal/config.yaml)')
    .argument('<path...>', 'files or directories holding .rego files')
    .option('-c, --config-file <file>', 'config file (default: the nearest .regal/config.yaml)')
    .option('--debug', 'print what is read and which rules run to stderr')
    .option('-d, --disable <rule>', 'disable a rule (repeatable, or comma-separated)', collect, [])
    .option('-D, --disable-all', 'disable every rule')
    .option('--disable-category <category>', 'disable every rule of a category (repeatable)', collect, [])
    .option('-e, --enable <rule>', 'enable a rule (repeatable, or comma-separated)', collect, [])
    .option('-E, --enable-all', 'enable every rule')
    .option('--enable-category <category>', 'enable every rule of a category (repeatable)', collect, [])
    .option('--enable-print', 'let custom rules print to stderr')
    .addOption(
      new Option('-l, --fail-level <level>', 'lowest level that fails the run')
        .choices(['error', 'warning'])
        .default('error'),
    )
    .addOption(
      new Option('-f, --format <format>', 'report format').choices([...REPORT_FORMATS]).default('pretty'),
    )
    .option('--ignore-files <pattern>', 'skip files matching a pattern (repeatable)', collect, [])
    .option('--instrument', 'per-rule timings (implies --metrics)')
    .option('--metrics', 'add timers to the report')
    .option('--no-color', 'no ANSI colours in pretty and compact output')
    .option('-o, --output-file <file>', 'write the report to a file instead of stdout')
    .option('--pprof', 'accepted for compatibility (see stderr)')
    .option('--profile', 'accepted for compatibility (see stderr)')
    .option('-r, --rules <path>', 'custom rule files or directories (repeatable)', collect, [])
    .option('--timeout <duration>', 'stop after this long (e.g. 30s); default: no limit')
    .action(async (paths: string[], options: LintOptions) => {
      process.exitCode = await runLint(paths, options)
    })
}

async function runLint(paths: string[], options: LintOptions): Promise<number> {
  for (const [flag, notice] of NOTICES) if (options[flag]) process.stderr.write(`regent: ${notice}\n`)
  const debug = (line: string) => {
    if (options.debug) process.stderr.write(`regent lint: ${line}\n`)
  }
  let deadline: number | undefined
  if (options.timeout !== undefined) {
    let ns: bigint
    try {
      ns = parseDuration(options.timeout)
    } catch {
      return fail(`invalid --timeout ${options.timeout} (e.g. 30s, 1m)`)
    }
    if (ns < 0n) return fail(`invalid --timeout ${options.timeout} (e.g. 30s, 1m)`)
    if (ns > 0n) deadline = Date.now() + Number(ns / 1_000_000n)
  }
  try {
    const config = loadLintConfig(options.configFile, paths)
    debug(config.path ? `config ${config.path}` : 'no config file; every rule at its default level')
    const files = await readRegoFiles(paths, ['.regal'])
    debug(`${files.length} file(s) under ${paths.join(', ')}`)
    const rules: LintRule[] = [...BUILTIN_LINT_RULES, ...FILTERING_RULES]
    const customSources = await readCustomRuleFiles(options.rules, paths)
    if (customSources.length > 0) {
      const print = options.enablePrint ? (m: string) => process.stderr.write(`${m}\n`) : undefined
      // Loaded on demand: the Rego compiler and evaluator are only needed for custom rules.
      const { loadCustomRules } = await import('../../core/lint/custom-rules.js')
      const custom = loadCustomRules(customSources, print ? { print } : {})
      debug(`custom rules: ${custom.map((r) => `${r.category}/${r.name}`).join(', ')}`)
      rules.push(...custom)
    }
    const selection: RuleSelection = {
      enableAll: options.enableAll === true,
      disableAll: options.disableAll === true,
      enableCategory: list(options.enableCategory),
      disableCategory: list(options.disableCategory),
      enable: list(options.enable),
      disable: list(options.disable),
    }
    const known = new Set(rules.map((r) => r.name))
    for (const name of [...selection.enable!, ...selection.disable!]) {
      if (!known.has(name)) return fail(`unknown rule ${name} (rules: docs/lint.md)`)
    }
    const { report, parseErrors } = await lint({
      files,
      rules,
      config,
      selection,
      ignoreFiles: options.ignoreFiles,
      metrics: options.metrics === true || options.instrument === true,
      ...(deadline !== undefined ? { deadline } : {}),
    })
    if (parseErrors.length > 0) process.stderr.write(`${new RegoErrors(parseErrors).toString()}\n`)
    const color = options.color && !options.outputFile && process.stdout.isTTY === true
    const text = renderReport(report, options.format, color)
    if (options.outputFile) await writeFile(options.outputFile, text)
    else process.stdout.write(text)
    if (parseErrors.length > 0) return 1
    if (report.violations.some((v) => v.level === 'error')) return LINT_ERRORS_EXIT
    if (options.failLevel === 'warning' && report.violations.length > 0) return LINT_WARNINGS_EXIT
    return 0
  } catch (err) {
    return fail(err instanceof Error ? err.message : String(err))
  }
}

function fail(message: string): number {
  process.stderr.write(`regent: ${message}\n`)
  return 1
}
