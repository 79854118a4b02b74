/**
 * The flags of `regent run -s` that make it an agent: `-c/--config-file`, `--set`, `--set-file`,
 * http(s) bundle URLs among the arguments (OPA's shorthand), and the bundle verification flags
 * (`--verification-key`, `--verification-key-id`, `--signing-alg`, `--scope`,
 * `--exclude-files-verify`) applied to the bundles named by URL, as OPA applies them to the
 * bundles it is given on the command line. `--skip-verify` turns verification off for every
 * downloaded bundle.
 */
import {
  agentConfigDocument,
  loadAgentConfig,
  wantsAgentConfig,
} from '../../agent/config/load-agent-config.js'
import type { Override } from '../../agent/config/overrides.js'
import type { AgentConfig } from '../../agent/config/schema.js'
import type { AgentPlugins, AgentPluginsOptions } from '../../agent/plugins/agent-plugins.js'
import { ConfigError } from '../../core/config.js'
import { KeyFileError, readKeyOrSecret } from '../../core/key-files.js'

/** The flags read here, as commander parses them. */
export interface AgentFlags {
  configFile?: string
  set: string[]
  setFile?: string[]
  verificationKey?: string
  verificationKeyId: string
  signingAlg: string
  scope?: string
  excludeFilesVerify: string[]
  skipVerify?: boolean
}

/** What the agent flags decided. */
export interface AgentOptions {
  /** The validated configuration; undefined when nothing asks for one. */
  config?: AgentConfig
  /** The configuration as given (environment substituted), for `opa.runtime().config`. */
  document?: Record<string, unknown>
  skipVerification: boolean
  /** Arguments that are not bundle URLs (local files and bundles). */
  localPaths: string[]
  localBundles: string[]
}

/** An agent flag that cannot be used; the CLI prints it and exits 2. */
export class AgentFlagError extends Error {}

const isUrl = (p: string) => /^https?:\/\//i.test(p)

/**
 * Splits the arguments and reads the configuration. Overrides are applied in command-line order
 * (all `--set` then all `--set-file`, as commander collects them separately).
 * @throws AgentFlagError naming the file, key or flag at fault.
 */
export function readAgentOptions(paths: string[], bundles: string[], flags: AgentFlags): AgentOptions {
  const bundleUrls = [...paths, ...bundles].filter(isUrl)
  const overrides: Override[] = [
    ...flags.set.map((text) => ({ flag: '--set' as const, text })),
    ...(flags.setFile ?? []).map((text) => ({ flag: '--set-file' as const, text })),
  ]
  const sources = { file: flags.configFile, overrides, bundleUrls }
  const options: AgentOptions = {
    skipVerification: flags.skipVerify === true,
    localPaths: paths.filter((p) => !isUrl(p)),
    localBundles: bundles.filter((p) => !isUrl(p)),
  }
  if (!wantsAgentConfig(sources)) return options
  let config: AgentConfig
  try {
    config = loadAgentConfig(sources)
  } catch (err) {
    if (err instanceof ConfigError) throw new AgentFlagError(err.message)
    throw err
  }
  if (flags.verificationKey && !flags.skipVerify && bundleUrls.length > 0) {
    applyVerificationFlags(config, bundleUrls.length, flags)
  }
  return { ...options, config, document: agentConfigDocument(sources) }
}

/** `keys.<id>` from the key flags, and `signing` on each `cliN` bundle. */
function applyVerificationFlags(config: AgentConfig, urlCount: number, flags: AgentFlags): void {
  let key: string
  try {
    key = readKeyOrSecret(flags.verificationKey!, '--verification-key', flags.signingAlg)
  } catch (err) {
    if (err instanceof KeyFileError) throw new AgentFlagError(err.message)
    throw err
  }
  config.keys[flags.verificationKeyId] = { key, algorithm: flags.signingAlg }
  for (let i = 1; i <= urlCount; i++) {
    const bundle = config.bundles[`cli${i}`]
    if (!bundle) continue
    bundle.signing = {
      keyid: flags.verificationKeyId,
      ...(flags.scope ? { scope: flags.scope } : {}),
      exclude_files: flags.excludeFilesVerify,
    }
  }
}

/**
 * Starts the plugins of a configured agent over `state` (persisted bundles activated first);
 * undefined without a configuration. A configuration that cannot run prints its problem to
 * stderr and sets exit code 1, as a policy that does not load does.
 */
export async function startConfiguredAgent(
  agent: AgentOptions,
  context: Omit<AgentPluginsOptions, 'config' | 'skipVerification'>,
): Promise<AgentPlugins | undefined | 'failed'> {
  if (!agent.config) return undefined
  // Loaded only for an agent: a plain `run` (and the shell) starts without the plugins' modules.
  const { startAgentPlugins } = await import('../../agent/plugins/agent-plugins.js')
  try {
    return await startAgentPlugins({
      ...context,
      config: agent.config,
      skipVerification: agent.skipVerification,
    })
  } catch (err) {
    if (!(err instanceof ConfigError)) throw err
    process.stderr.write(`regent run: ${err.message}\n`)
    process.exitCode = 1
    return 'failed'
  }
}
