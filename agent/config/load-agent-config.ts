/**
 * Reads `regent run -s`'s agent configuration: the `-c` file (YAML or JSON, `${ENV}` substituted),
 * then `--set`/`--set-file` overrides, then the http(s) bundle URLs given as arguments (OPA's
 * shorthand: each becomes `services.cliN.url`, `bundles.cliN.{service,resource,persist: true}`).
 * The result is validated as a whole; every problem names its key.
 */
import { readFileSync } from 'node:fs'
import { parse as parseYaml, stringify } from 'yaml'
import { ConfigError, parseConfig, substituteEnvTree } from '../../core/config.js'
import { applyOverrides, type Override, OverrideError } from './overrides.js'
import { refusedSettings } from './refusals.js'
import { type AgentConfig, agentConfigSchema } from './schema.js'

/** Where the configuration comes from. */
export interface AgentConfigSources {
  file?: string
  overrides: readonly Override[]
  /** http(s) bundle URLs from the command line. */
  bundleUrls: readonly string[]
  env?: NodeJS.ProcessEnv
}

/** Whether anything asks for an agent configuration (otherwise `run -s` serves local files only). */
export function wantsAgentConfig(sources: AgentConfigSources): boolean {
  return sources.file !== undefined || sources.overrides.length > 0 || sources.bundleUrls.length > 0
}

/**
 * The validated configuration.
 * @throws ConfigError one line per problem, each naming the key (or the flag) at fault.
 */
export function loadAgentConfig(sources: AgentConfigSources): AgentConfig {
  const raw = rawAgentConfig(sources)
  // Validated through the same path as every regent config (env substitution, key-naming errors).
  const config = parseConfig(stringify(raw), agentConfigSchema, { env: sources.env, file: sources.file })
  const refused = refusedSettings(config)
  if (refused.length > 0) throw new ConfigError(refused, sources.file)
  return config
}

/**
 * The configuration as given: the file with the overrides applied and the environment
 * substituted, before validation adds defaults. OPA shows this document as `opa.runtime().config`.
 * Call after {@link loadAgentConfig} accepted the same sources.
 */
export function agentConfigDocument(sources: AgentConfigSources): Record<string, unknown> {
  return substituteEnvTree(rawAgentConfig(sources), sources.env ?? process.env) as Record<string, unknown>
}

/** The file's mapping with the overrides (and the URL shorthand) applied. */
function rawAgentConfig(sources: AgentConfigSources): Record<string, unknown> {
  let raw: Record<string, unknown> = {}
  if (sources.file !== undefined) raw = readRaw(sources.file)
  const overrides = [...sources.overrides, ...sources.bundleUrls.flatMap(urlOverrides)]
  if (overrides.length > 0) raw.services = servicesByName(raw.services)
  try {
    applyOverrides(raw, overrides)
  } catch (err) {
    if (err instanceof OverrideError) throw new ConfigError([err.message], sources.file)
    throw err
  }
  return raw
}

function readRaw(file: string): Record<string, unknown> {
  let text: string
  try {
    text = readFileSync(file, 'utf8')
  } catch (err) {
    throw new ConfigError(
      [`cannot read the file: ${(err as NodeJS.ErrnoException).code ?? String(err)}`],
      file,
    )
  }
  let value: unknown
  try {
    value = parseYaml(text, { uniqueKeys: true, maxAliasCount: 100 }) ?? {}
  } catch (err) {
    throw new ConfigError([(err as Error).message.split('\n')[0]!], file)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new ConfigError(['(root): expected a mapping of keys'], file)
  }
  return value as Record<string, unknown>
}

/**
 * `services` as a list of named services becomes a map by name, so `--set services.<name>.…`
 * (and the URL shorthand) reaches a service given in list form; anything else is left as it is.
 */
function servicesByName(services: unknown): unknown {
  if (!Array.isArray(services)) return services
  const named = services.every(
    (s) => typeof s === 'object' && s !== null && typeof (s as { name?: unknown }).name === 'string',
  )
  if (!named) return services
  return Object.fromEntries(services.map((s) => [(s as { name: string }).name, s]))
}

/** OPA's `urlPathToConfigOverride`, numbered from 1 in argument order. */
function urlOverrides(url: string, index: number): Override[] {
  let parsed: URL
  try {
    parsed = new URL(url)
  } catch {
    throw new ConfigError([`${url}: not a valid bundle URL`])
  }
  const name = `cli${index + 1}`
  const resource = `${parsed.pathname}${parsed.search}`
  return [
    { flag: '--set', text: `services.${name}.url=${parsed.protocol}//${parsed.host}` },
    { flag: '--set', text: `bundles.${name}.service=${name}` },
    { flag: '--set', text: `bundles.${name}.resource=${resource}` },
    { flag: '--set', text: `bundles.${name}.persist=true` },
  ]
}
