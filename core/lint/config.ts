/**
 * Regal's configuration file (`.regal/config.yaml`) and the command line's rule selection, resolved
 * to one setting per rule: its level, its options and the files it ignores.
 *
 * ```yaml
 * rules:
 *   default: {level: error}          # every rule
 *   style:
 *     default: {level: warning}      # every rule of a category
 *     line-length:
 *       level: error
 *       max-line-length: 100         # any other key is an option of the rule
 *       ignore: {files: ["*_test.rego"]}
 * ignore:
 *   files: ["vendor/**"]             # never linted
 * ```
 *
 * Flags win over the file: `-E`/`-D` (all rules), then `--enable-category`/`--disable-category`,
 * then `-e`/`-d` (single rules), as Regal applies them.
 */
import { existsSync, readFileSync } from 'node:fs'
import { dirname, join, resolve } from 'node:path'
import { parse as parseYaml } from 'yaml'
import type { Level, LintRule } from './types.js'

/** One rule's (or category's, or the default's) settings in the file. */
export interface RuleSettings {
  level?: Level
  ignoreFiles?: string[]
  options: Record<string, unknown>
}

/** The file, read and checked. */
export interface LintConfig {
  /** `default` → settings; `<category>` → (`default` | `<rule>`) → settings. */
  defaults: RuleSettings
  categories: Map<string, { defaults: RuleSettings; rules: Map<string, RuleSettings> }>
  ignoreFiles: string[]
  /** Where it was read from, for messages. */
  path?: string
}

/** The command line's rule selection. */
export interface RuleSelection {
  enableAll?: boolean
  disableAll?: boolean
  enableCategory?: string[]
  disableCategory?: string[]
  enable?: string[]
  disable?: string[]
}

/** One rule's effective settings. */
export interface ResolvedRule {
  level: Level
  options: Record<string, unknown>
  ignoreFiles: string[]
}

/** A config file that cannot be used; the message names the key. */
export class LintConfigError extends Error {
  override name = 'LintConfigError'
}

const LEVELS: ReadonlySet<string> = new Set(['error', 'warning', 'ignore'])

/** An empty config: every rule at its default level. */
export function emptyConfig(): LintConfig {
  return { defaults: { options: {} }, categories: new Map(), ignoreFiles: [] }
}

/** `.regal/config.yaml` (or `.regal.yaml`) in `start` or the nearest directory above it. */
export function findConfigFile(start: string): string | undefined {
  let dir = resolve(start)
  for (let depth = 0; depth < 64; depth++) {
    for (const candidate of [join(dir, '.regal', 'config.yaml'), join(dir, '.regal.yaml')]) {
      if (existsSync(candidate)) return candidate
    }
    const parent = dirname(dir)
    if (parent === dir) return undefined
    dir = parent
  }
  return undefined
}

/** Reads and checks a config file. @throws LintConfigError naming the file and key. */
export function readConfigFile(path: string): LintConfig {
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    throw new LintConfigError(`cannot read config file ${path}: ${(err as Error).message}`)
  }
  try {
    return { ...parseConfig(text, path), path }
  } catch (err) {
    if (err instanceof LintConfigError) throw err
    throw new LintConfigError(`${path}: ${(err as Error).message}`)
  }
}

/** Parses config text. @throws LintConfigError naming the key. */
export function parseConfig(text: string, where = 'config'): LintConfig {
  const doc: unknown = parseYaml(text, { maxAliasCount: 100 }) ?? {}
  if (!isRecord(doc)) throw new LintConfigError(`${where}: expected a mapping at the top level`)
  const config = emptyConfig()
  const rules = doc.rules ?? {}
  if (!isRecord(rules)) throw new LintConfigError(`${where}: rules: expected a mapping`)
  for (const [category, body] of Object.entries(rules)) {
    const key = `rules.${category}`
    if (category === 'default') {
      config.defaults = settings(body, key, where)
      continue
    }
    if (!isRecord(body)) throw new LintConfigError(`${where}: ${key}: expected a mapping of rule names`)
    const entry = { defaults: { options: {} } as RuleSettings, rules: new Map<string, RuleSettings>() }
    for (const [rule, ruleBody] of Object.entries(body)) {
      const s = settings(ruleBody, `${key}.${rule}`, where)
      if (rule === 'default') entry.defaults = s
      else entry.rules.set(rule, s)
    }
    config.categories.set(category, entry)
  }
  const ignore = doc.ignore
  if (ignore !== undefined && ignore !== null) {
    if (!isRecord(ignore)) throw new LintConfigError(`${where}: ignore: expected a mapping with files`)
    config.ignoreFiles = stringList(ignore.files, 'ignore.files', where)
  }
  return config
}

function settings(body: unknown, key: string, where: string): RuleSettings {
  if (body === null || body === undefined) return { options: {} }
  if (!isRecord(body))
    throw new LintConfigError(`${where}: ${key}: expected a mapping (level, ignore, options)`)
  const out: RuleSettings = { options: {} }
  for (const [name, value] of Object.entries(body)) {
    if (name === 'level') {
      if (typeof value !== 'string' || !LEVELS.has(value)) {
        throw new LintConfigError(
          `${where}: ${key}.level: expected error, warning or ignore, got ${String(value)}`,
        )
      }
      out.level = value as Level
    } else if (name === 'ignore') {
      if (!isRecord(value))
        throw new LintConfigError(`${where}: ${key}.ignore: expected a mapping with files`)
      out.ignoreFiles = stringList(value.files, `${key}.ignore.files`, where)
    } else {
      out.options[name] = value
    }
  }
  return out
}

function stringList(value: unknown, key: string, where: string): string[] {
  if (value === undefined || value === null) return []
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string')) {
    throw new LintConfigError(`${where}: ${key}: expected a list of file patterns`)
  }
  return value as string[]
}

function isRecord(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v)
}

/** The effective level, options and ignored files of `rule`. */
export function resolveRule(
  rule: Pick<LintRule, 'name' | 'category' | 'defaultLevel'>,
  config: LintConfig,
  selection: RuleSelection = {},
): ResolvedRule {
  const category = config.categories.get(rule.category)
  const own = category?.rules.get(rule.name)
  let level: Level =
    own?.level ?? category?.defaults.level ?? config.defaults.level ?? rule.defaultLevel ?? 'error'
  // A rule on through the file keeps its level; one turned on by a flag gets `error`.
  const on = (): Level => (level === 'ignore' ? 'error' : level)
  if (selection.enableAll) level = on()
  if (selection.disableAll) level = 'ignore'
  if (selection.enableCategory?.includes(rule.category)) level = on()
  if (selection.disableCategory?.includes(rule.category)) level = 'ignore'
  if (selection.enable?.includes(rule.name)) level = on()
  if (selection.disable?.includes(rule.name)) level = 'ignore'
  return {
    level,
    options: { ...config.defaults.options, ...category?.defaults.options, ...own?.options },
    ignoreFiles: [
      ...(config.defaults.ignoreFiles ?? []),
      ...(category?.defaults.ignoreFiles ?? []),
      ...(own?.ignoreFiles ?? []),
    ],
  }
}
