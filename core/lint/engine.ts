/**
 * The lint run: parse every file, give each enabled rule each file it does not ignore, and turn
 * findings into violations at the rule's level. Files that do not parse are returned as parse
 * errors (the caller decides how to show them); the other files are still linted, so one broken
 * file does not hide the rest of the report. Pure apart from the clock: no file or network I/O.
 */
import { RegoError } from '../rego/errors.js'
import { parseModuleWithErrors } from '../rego/syntax/module-parser.js'
import { type LintConfig, type ResolvedRule, type RuleSelection, resolveRule } from './config.js'
import { isIgnored } from './ignore-files.js'
import type { LintFile, LintReport, LintRule, Violation } from './types.js'

/** What a run needs. */
export interface LintOptions {
  files: ReadonlyArray<{ file: string; text: string }>
  rules: readonly LintRule[]
  config: LintConfig
  selection?: RuleSelection
  /** `--ignore-files`, added to the config's `ignore.files`. */
  ignoreFiles?: readonly string[]
  regoVersion?: 'v0' | 'v1'
  /** Stop with {@link LintTimeoutError} after this time (ms since the epoch). */
  deadline?: number
  /** Collect timers into `report.metrics`. */
  metrics?: boolean
}

/** The run's result: the report, and the files that did not parse. */
export interface LintResult {
  report: LintReport
  parseErrors: RegoError[]
}

/** The run took longer than `--timeout`. */
export class LintTimeoutError extends Error {
  override name = 'LintTimeoutError'
}

/** Lints `options.files`. */
export async function lint(options: LintOptions): Promise<LintResult> {
  const timers: Record<string, number> = {}
  const time = <T>(name: string, run: () => T): T => {
    if (!options.metrics) return run()
    const started = process.hrtime.bigint()
    try {
      return run()
    } finally {
      timers[name] = (timers[name] ?? 0) + Number(process.hrtime.bigint() - started)
    }
  }
  const globalIgnore = [...options.config.ignoreFiles, ...(options.ignoreFiles ?? [])]
  const parsed: LintFile[] = []
  const parseErrors: RegoError[] = []
  let failed = 0
  let scanned = 0
  for (const { file, text } of options.files) {
    if (isIgnored(file, globalIgnore)) continue
    scanned++
    checkDeadline(options.deadline)
    const result = time('timer_lint_parse_ns', () => parseEitherVersion(file, text, options.regoVersion))
    if (!result.module) {
      failed++
      parseErrors.push(
        ...(result.errors.length > 0
          ? result.errors
          : [new RegoError('rego_parse_error', `${file}: cannot parse`)]),
      )
      continue
    }
    parsed.push({ file, text, lines: text.split(/\r?\n/), module: result.module })
  }

  const active: Array<[LintRule, ResolvedRule]> = []
  let skipped = 0
  for (const rule of options.rules) {
    const resolved = resolveRule(rule, options.config, options.selection)
    if (resolved.level === 'ignore') skipped++
    else active.push([rule, resolved])
  }

  const violations: Violation[] = []
  for (const file of parsed) {
    for (const [rule, resolved] of active) {
      if (isIgnored(file.file, resolved.ignoreFiles)) continue
      checkDeadline(options.deadline)
      const started = options.metrics ? process.hrtime.bigint() : 0n
      const findings = await rule.check({ file, all: parsed, options: resolved.options })
      if (options.metrics) {
        const key = `timer_lint_rule_${rule.category}_${rule.name}_ns`
        timers[key] = (timers[key] ?? 0) + Number(process.hrtime.bigint() - started)
      }
      for (const finding of findings) {
        const row = finding.location?.row ?? 1
        const col = finding.location?.col ?? 1
        const text = file.lines[row - 1]
        violations.push({
          title: rule.name,
          description: finding.message ?? rule.description,
          category: rule.category,
          level: resolved.level as Violation['level'],
          location: { file: file.file, row, col, ...(text !== undefined ? { text } : {}) },
          related_resources: [
            { description: 'documentation', ref: rule.documentation ?? `docs/lint.md#${rule.name}` },
          ],
        })
      }
    }
  }
  violations.sort(
    (a, b) =>
      a.location.file.localeCompare(b.location.file) ||
      a.location.row - b.location.row ||
      a.location.col - b.location.col ||
      a.title.localeCompare(b.title),
  )
  const report: LintReport = {
    violations,
    summary: {
      files_scanned: scanned,
      files_failed: failed,
      rules_skipped: skipped,
      num_violations: violations.length,
    },
  }
  if (options.metrics) report.metrics = timers
  return { report, parseErrors }
}

/**
 * Parses as `version` when given; otherwise as Rego v1 and, when that fails but v0 succeeds, as v0
 * (as Regal lints both): a project mid-migration gets its v0 files linted rather than refused.
 * The v1 errors are the ones reported when neither parses.
 */
function parseEitherVersion(file: string, text: string, version: 'v0' | 'v1' | undefined) {
  const v1 = parseModuleWithErrors(text, { file, regoVersion: version ?? 'v1' })
  if (v1.module || version) return v1
  const v0 = parseModuleWithErrors(text, { file, regoVersion: 'v0' })
  return v0.module ? v0 : v1
}

function checkDeadline(deadline: number | undefined): void {
  if (deadline !== undefined && Date.now() > deadline) throw new LintTimeoutError('lint timed out')
}
