/**
 * Configuration: one YAML file, `${VAR}` and `${VAR:-default}` substituted in string values,
 * validated with zod. A bad file stops the process with one line per problem that names the
 * key path, e.g. `relay.decision_logs.buffer.max_bytes: expected a positive integer, got "ten"`.
 *
 * Each part (relay, service, …) declares the schema of its own section; the CLI composes them.
 */
import { readFileSync } from 'node:fs'
import { parseDocument, parse as parseYamlScalar } from 'yaml'
import { type ZodType, z } from 'zod'
import { LOG_LEVELS } from './log.js'
import { findLoop } from './yaml-loops.js'

/** A config file that cannot be used; `problems` holds one line per problem. */
export class ConfigError extends Error {
  constructor(
    readonly problems: string[],
    readonly file?: string,
  ) {
    super(`${file ? `${file}: ` : ''}invalid configuration\n${problems.map((p) => `  ${p}`).join('\n')}`)
    this.name = 'ConfigError'
  }
}

/** Reusable field schemas whose messages read well after "key: ". */
export const field = {
  positiveInt: () =>
    z
      .number({ error: 'expected a positive integer' })
      .int({ error: 'expected a positive integer' })
      .positive({
        error: 'expected a positive integer',
      }),
  nonNegativeInt: () =>
    z
      .number({ error: 'expected a non-negative integer' })
      .int({ error: 'expected a non-negative integer' })
      .min(0, {
        error: 'expected a non-negative integer',
      }),
  address: () =>
    z
      .string({ error: 'expected HOST:PORT' })
      .regex(/^(\[[^\]]+\]|[^:]*):\d{1,5}$/, { error: 'expected HOST:PORT' }),
}

/** Keys every regent process reads. */
export const baseConfigSchema = z.strictObject({
  log: z
    .strictObject({
      level: z.enum(LOG_LEVELS, { error: `expected one of ${LOG_LEVELS.join(', ')}` }).default('info'),
    })
    .prefault({}),
})

const VAR = /\$\{([A-Za-z_][A-Za-z0-9_]*)(?::-([^}]*))?\}/g

/**
 * Replaces `${VAR}` and `${VAR:-default}` inside one string. A value that is exactly one
 * reference is read as a YAML scalar, so `max_bytes: ${MAX}` becomes a number.
 * @throws when a variable without a default is unset; the message names it.
 */
export function substituteEnv(value: string, env: NodeJS.ProcessEnv, where: string): unknown {
  const missing: string[] = []
  const replaced = value.replace(VAR, (_all, name: string, fallback: string | undefined) => {
    const found = env[name]
    if (found !== undefined && found !== '') return found
    if (fallback !== undefined) return fallback
    missing.push(name)
    return ''
  })
  if (missing.length > 0)
    throw new ConfigError([`${where}: environment variable ${missing.join(', ')} is not set`])
  return /^\$\{[^}]+\}$/.test(value) ? asScalar(replaced) : replaced
}

// A whole-value reference may stand for a number or a boolean; anything else stays a string.
function asScalar(text: string): unknown {
  try {
    const parsed: unknown = parseYamlScalar(text)
    return typeof parsed === 'number' || typeof parsed === 'boolean' ? parsed : text
  } catch {
    return text
  }
}

/** A parsed configuration document with `${VAR}` substituted in every string value. */
export function substituteEnvTree(node: unknown, env: NodeJS.ProcessEnv): unknown {
  return substituteTree(node, env, [])
}

function substituteTree(node: unknown, env: NodeJS.ProcessEnv, path: string[]): unknown {
  if (typeof node === 'string') return substituteEnv(node, env, path.join('.') || '(root)')
  if (Array.isArray(node)) return node.map((item, i) => substituteTree(item, env, [...path, String(i)]))
  if (node !== null && typeof node === 'object') {
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, substituteTree(v, env, [...path, k])]))
  }
  return node
}

/**
 * Parses YAML text, substitutes environment variables and validates against `schema`.
 * Substitution happens on parsed string values, not on the raw text, so a variable's value can
 * never inject YAML structure and comments are left alone.
 */
export function parseConfig<S extends ZodType>(
  text: string,
  schema: S,
  options: { env?: NodeJS.ProcessEnv; file?: string } = {},
): z.output<S> {
  const doc = parseDocument(text, { uniqueKeys: true })
  if (doc.errors.length > 0) {
    throw new ConfigError(
      doc.errors.map((e) => {
        const pos = e.linePos?.[0]
        return `${pos ? `line ${pos.line}, column ${pos.col}: ` : ''}${e.message.split('\n')[0]!.replace(/ at line \d+, column \d+:?$/, '')}`
      }),
      options.file,
    )
  }
  const raw = doc.toJS({ maxAliasCount: 100 }) ?? {}
  if (typeof raw !== 'object' || Array.isArray(raw)) {
    throw new ConfigError(['(root): expected a mapping of keys'], options.file)
  }
  const loop = findLoop(raw)
  if (loop !== undefined) {
    throw new ConfigError([`${loop}: a YAML alias refers to a node that contains it`], options.file)
  }
  let substituted: unknown
  try {
    substituted = substituteTree(raw, options.env ?? process.env, [])
  } catch (err) {
    if (err instanceof ConfigError) throw new ConfigError(err.problems, options.file)
    throw err
  }
  const result = schema.safeParse(substituted, { reportInput: true })
  if (!result.success) throw new ConfigError(result.error.issues.map(describeIssue), options.file)
  return result.data
}

/** Reads and validates a config file; with no path, validates an empty document (all defaults). */
export function loadConfig<S extends ZodType>(
  path: string | undefined,
  schema: S,
  env: NodeJS.ProcessEnv = process.env,
): z.output<S> {
  if (path === undefined) return parseConfig('{}', schema, { env })
  let text: string
  try {
    text = readFileSync(path, 'utf8')
  } catch (err) {
    throw new ConfigError(
      [`cannot read the file: ${(err as NodeJS.ErrnoException).code ?? (err as Error).message}`],
      path,
    )
  }
  return parseConfig(text, schema, { env, file: path })
}

function describeIssue(issue: z.core.$ZodIssue): string {
  const key = issue.path.map(String).join('.') || '(root)'
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map((k) => `${key === '(root)' ? k : `${key}.${k}`}: unknown key`).join('\n  ')
  }
  const input = (issue as { input?: unknown }).input
  const got =
    input === undefined
      ? issue.code === 'invalid_type'
        ? ', but it is missing'
        : ''
      : `, got ${JSON.stringify(input)}`
  return `${key}: ${issue.message}${got}`
}
