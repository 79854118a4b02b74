/**
 * The linter's shapes: a rule (name, category, default level, a check over one parsed file and the
 * whole file set), what a check finds, and the violation a report lists. Violations are shaped as
 * Regal's JSON report shapes them (`title`, `description`, `category`, `level`, `location`,
 * `related_resources`), so tools that read Regal's output read regent's too.
 */
import type { Location, Module } from '../rego/syntax/ast.js'

/** How a rule's findings count: `ignore` turns the rule off. */
export type Level = 'error' | 'warning' | 'ignore'

/** One parsed file, with its text split into lines (for `text` and line-based rules). */
export interface LintFile {
  file: string
  text: string
  lines: readonly string[]
  module: Module
}

/** Everything a rule may look at: the file being checked and every file of the run. */
export interface LintContext {
  file: LintFile
  all: readonly LintFile[]
  /** The rule's own options from the config (`max-line-length`, ...). */
  options: Readonly<Record<string, unknown>>
}

/** What a check reports: where, and optionally a message more precise than the rule's description. */
export interface Finding {
  location: Pick<Location, 'row' | 'col'> | undefined
  message?: string
}

/** A lint rule. `description` is the one-line message; the rationale lives in the doc comment and docs/lint.md. */
export interface LintRule {
  name: string
  category: string
  description: string
  /** Level when the config says nothing (Regal's default for its own rules is `error`). */
  defaultLevel?: Level
  /** Where the rationale is written (default: `docs/lint.md#<name>`). */
  documentation?: string
  /** May be async (custom Rego rules, the compile endpoint's checks). */
  check(ctx: LintContext): Finding[] | Promise<Finding[]>
}

/** One reported violation, as Regal's JSON report shapes it. */
export interface Violation {
  title: string
  description: string
  category: string
  level: Exclude<Level, 'ignore'>
  location: { file: string; row: number; col: number; text?: string }
  related_resources?: Array<{ description: string; ref: string }>
}

/** A lint run's result. */
export interface LintReport {
  violations: Violation[]
  summary: { files_scanned: number; files_failed: number; rules_skipped: number; num_violations: number }
  /** Timers in nanoseconds, filled only when metrics were asked for. */
  metrics?: Record<string, number>
}
