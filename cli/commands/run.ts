/**
 * `regent run -s [-a HOST:PORT]... [-b BUNDLE]... [PATH...]`: an OPA-compatible policy server on
 * regent's own Rego engine (OPA's REST API: data, query, policies, health; see docs/run.md).
 * Positional paths are policy and data files (`prefix:path` roots them); `-b` loads bundles.
 * Without `-s` it starts the interactive shell (OPA's REPL, cli/repl/) on the same policies and data.
 */
import { homedir } from 'node:os'
import { join } from 'node:path'
import { Command, Option } from 'commander'
import { stateCompileBackend } from '../../agent/compile-backend.js'
import { type LoadedState, loadInitialState } from '../../agent/load.js'
import { createAgentLogger } from '../../agent/log-format.js'
import type { AgentPlugins } from '../../agent/plugins/agent-plugins.js'
import { startAgent } from '../../agent/serve-agent.js'
import { ServerState } from '../../agent/state.js'
import type { VerificationConfig } from '../../core/bundle/index.js'
import { parseAddress, stopOnSignals } from '../../core/http/index.js'
import { KeyFileError, readKeyOrSecret } from '../../core/key-files.js'
import type { Logger } from '../../core/log.js'
import { DEFAULT_EVALUATION_BUDGET, type EvaluationBudget, RegoErrors } from '../../core/rego/index.js'
import { defaultListenAddr } from '../../core/runtime-defaults.js'
import { CapabilitiesError, readCapabilities } from '../capabilities-option.js'
import { budgetFromFlags, LimitFlagError } from '../evaluation-limits.js'
import { runShell } from '../repl/shell.js'
import { ShellState } from '../repl/state.js'
import {
  AgentFlagError,
  type AgentFlags,
  type AgentOptions,
  readAgentOptions,
  startConfiguredAgent,
} from '../run-options/agent-config.js'
import { addRunCompatOptions } from '../run-options/compat-flags.js'
import {
  addServerOptions,
  listenAddress,
  ServerFlagError,
  type ServerFlags,
  type ServerSettings,
  serverSettings,
} from '../run-options/server.js'
import { runtimeTerm } from '../runtime-term.js'
import { REGENT_VERSION } from '../version-info.js'

/** OPA's default listen address (`--v0-compatible` listens on every interface, as OPA 0.x did). */
export const DEFAULT_RUN_ADDR = 'localhost:8181'
const DEFAULT_V0_ADDR = ':8181'

/** Options as commander parses them. */
interface RunFlags extends ServerFlags, AgentFlags {
  server?: boolean
  format?: 'pretty' | 'json'
  history?: string
  addr: string[]
  bundle: string[] | true
  ignore: string[]
  v0Compatible?: boolean
  maxErrors: string
  evalTimeout?: string
  instructionLimit?: string
  capabilities?: string
}

/** Validated settings of one run (server or shell). */
export interface RunSettings {
  /** `-s`: serve OPA's REST API; otherwise the interactive shell. */
  server: boolean
  /** The shell's output format (`-f`). */
  format: 'pretty' | 'json'
  /** The shell's history file (`-H`; OPA's default is `~/.opa_history`, regent's `~/.regent_history`). */
  historyFile: string
  addrs: Array<{ host: string; port: number }>
  files: string[]
  bundles: string[]
  ignore: string[]
  regoVersion: 'v0' | 'v1'
  graceMs: number
  maxErrors: number
  defaultDecision: string
  verification: VerificationConfig | undefined
  /** Timeout and work limit of each query and compile request (docs/limits.md). */
  budget: EvaluationBudget
  /** Hosts http.send may reach (`--capabilities` file's allow_net); undefined: every host. */
  allowNet: readonly string[] | undefined
  /** `unix://` addresses of `-a` (TCP ones are in `addrs`). */
  unixAddrs: string[]
  /** The agent's server flags (cli/run-options/server.ts). */
  agent: ServerSettings
  /** `-c`, `--set`, `--set-file` and bundle URLs (cli/run-options/agent-config.ts). */
  agentConfig: AgentOptions
}

/** A flag combination `run` refuses; the CLI prints it and exits 2. */
export class RunUsageError extends Error {}

const collect = (value: string, previous: string[] | true) => [...(previous === true ? [] : previous), value]

/** Builds the `run` command. */
export function runCommand(): Command {
  return addRunCompatOptions(addServerOptions(new Command('run')))
    .description(
      'start the interactive shell, or an OPA-compatible policy server (-s), on regent’s Rego engine',
    )
    .argument('[paths...]', 'policy and data files or directories (prefix:path roots them under data)')
    .option('-s, --server', 'start the server (without it: the interactive shell)')
    .addOption(
      new Option('-f, --format <format>', 'shell output format')
        .choices(['pretty', 'json'])
        .default('pretty'),
    )
    .option('-H, --history <file>', 'shell history file (default ~/.regent_history)')
    .option('-a, --addr <host:port>', `listen address, repeatable (default ${DEFAULT_RUN_ADDR})`, collect, [])
    .option(
      '-b, --bundle [path]',
      'bundle directory or .tar.gz (repeatable; bare -b loads every path as a bundle)',
      collect,
      [],
    )
    .option('--ignore <glob>', 'file names to skip when loading (repeatable)', collect, [])
    .option('--v0-compatible', 'Rego v0 syntax, and listen on every interface by default')
    .option('-m, --max-errors <n>', 'compile errors reported before stopping', '10')
    .option(
      '--set <key=value>',
      'configuration override, e.g. decision_logs.console=true (repeatable)',
      collect,
      [],
    )
    .option(
      '--set-file <key=path>',
      'configuration override with the text of a file (repeatable)',
      collect,
      [],
    )
    .option(
      '--verification-key <key>',
      'PEM public key file or HMAC secret that bundle signatures must verify with',
    )
    .option('--verification-key-id <id>', 'id of the verification key', 'default')
    .option('--signing-alg <alg>', 'signature algorithm of the verification key', 'RS256')
    .option('--scope <scope>', 'scope the bundle signatures must carry')
    .option('--exclude-files-verify <glob>', 'bundle files that need not be signed (repeatable)', collect, [])
    .option('--skip-verify', 'do not verify bundle signatures')
    .option(
      '-c, --config-file <file>',
      'OPA agent configuration file (services, bundles, decision_logs, status, labels)',
    )
    .option(
      '--eval-timeout <duration>',
      `time one query or compile request may evaluate, 0 for none (default ${DEFAULT_EVALUATION_BUDGET.timeoutMs / 1000}s)`,
    )
    .option(
      '--instruction-limit <n>',
      `units of work one query may do, 0 for no limit (default ${DEFAULT_EVALUATION_BUDGET.instructionLimit})`,
    )
    .option(
      '--capabilities <file>',
      'capabilities JSON file; its allow_net lists the hosts http.send may reach',
    )
    .action(async (paths: string[], flags: RunFlags, command: Command) => {
      let settings: RunSettings
      try {
        settings = runSettings(paths, flags)
      } catch (err) {
        if (!(err instanceof RunUsageError)) throw err
        command.error(err.message, { exitCode: 2, code: 'regent.usage' })
      }
      if (!settings.server) {
        await shell(settings)
        return
      }
      const logger = createAgentLogger({
        level: settings.agent.logLevel,
        ...(settings.agent.logFormat ? { format: settings.agent.logFormat } : {}),
        ...(settings.agent.logTimestampFormat !== undefined
          ? { timestampFormat: settings.agent.logTimestampFormat }
          : {}),
      })
      await serve(settings, logger)
    })
}

/**
 * Checks the flags and turns them into settings.
 * @throws RunUsageError naming the flag at fault.
 */
export function runSettings(paths: string[], flags: RunFlags): RunSettings {
  let agent: ServerSettings
  try {
    agent = serverSettings(flags)
  } catch (err) {
    if (err instanceof ServerFlagError) throw new RunUsageError(err.message)
    throw err
  }
  let agentConfig: AgentOptions
  try {
    agentConfig = readAgentOptions(paths, flags.bundle === true ? [] : flags.bundle, flags)
  } catch (err) {
    if (err instanceof AgentFlagError) throw new RunUsageError(err.message)
    throw err
  }
  const localPaths = agentConfig.localPaths
  const configuredAuthz = agentConfig.config?.default_authorization_decision
  if (agent.authorizationDecision !== undefined && configuredAuthz !== undefined)
    agent = { ...agent, authorizationDecision: configuredAuthz }
  const allBundles = flags.bundle === true
  const isTarball = (p: string) => /\.(tar\.gz|tgz)$/i.test(p)
  const bundles = [...agentConfig.localBundles, ...localPaths.filter((p) => allBundles || isTarball(p))]
  const files = localPaths.filter((p) => !allBundles && !isTarball(p))
  const v0 = flags.v0Compatible === true
  const unixAddrs = flags.addr.filter((a) => a.startsWith('unix://'))
  for (const a of unixAddrs) {
    try {
      listenAddress('--addr', a)
    } catch (err) {
      throw new RunUsageError((err as Error).message)
    }
  }
  const tcpAddrs = flags.addr.filter((a) => !a.startsWith('unix://'))
  const addrs = (
    flags.addr.length > 0
      ? tcpAddrs
      : [v0 ? DEFAULT_V0_ADDR : defaultListenAddr(8181, process.env, 'localhost')]
  ).map((a) => {
    try {
      // Go's ":8181" listens on every interface.
      return parseAddress(a, '0.0.0.0')
    } catch (err) {
      throw new RunUsageError(`--addr: ${(err as Error).message}`)
    }
  })
  return {
    server: flags.server === true,
    format: flags.format ?? 'pretty',
    historyFile: flags.history ?? join(homedir(), '.regent_history'),
    addrs,
    files,
    bundles,
    ignore: flags.ignore,
    regoVersion: v0 ? 'v0' : 'v1',
    graceMs: agent.graceMs,
    maxErrors: nonNegative('--max-errors', flags.maxErrors),
    defaultDecision: defaultDecision(agentConfig.config?.default_decision),
    verification: verification(flags, bundles.length > 0),
    ...evaluationSettings(flags),
    unixAddrs,
    agentConfig,
    agent,
  }
}

function evaluationSettings(flags: RunFlags): Pick<RunSettings, 'budget' | 'allowNet'> {
  try {
    return {
      budget: budgetFromFlags(
        { timeout: flags.evalTimeout, instructionLimit: flags.instructionLimit },
        { timeout: '--eval-timeout', instructionLimit: '--instruction-limit' },
        DEFAULT_EVALUATION_BUDGET,
      ),
      allowNet: readCapabilities(flags.capabilities)?.allowNet,
    }
  } catch (err) {
    if (err instanceof LimitFlagError || err instanceof CapabilitiesError)
      throw new RunUsageError(err.message)
    throw err
  }
}

function nonNegative(flag: string, text: string): number {
  const n = Number(text)
  if (!Number.isInteger(n) || n < 0)
    throw new RunUsageError(`${flag}: expected a non-negative integer, got ${JSON.stringify(text)}`)
  return n
}

/** OPA's `default_decision` (`/system/main`; a `data.x.y` ref is accepted too) as a slash path. */
function defaultDecision(configured: string | undefined): string {
  if (configured === undefined) return 'system/main'
  const path = configured.startsWith('data.') ? configured.slice(5).replaceAll('.', '/') : configured
  return path.replace(/^\/+|\/+$/g, '')
}

function verification(flags: RunFlags, haveBundles: boolean): VerificationConfig | undefined {
  if (!flags.verificationKey || flags.skipVerify || !haveBundles) return undefined
  let key: string
  try {
    // OPA: "the secret (HMAC) or path of the PEM file containing the public key".
    key = readKeyOrSecret(flags.verificationKey, '--verification-key', flags.signingAlg)
  } catch (err) {
    if (err instanceof KeyFileError) throw new RunUsageError(err.message)
    throw err
  }
  return {
    keys: { [flags.verificationKeyId]: { key, algorithm: flags.signingAlg } },
    keyId: flags.verificationKeyId,
    ...(flags.scope ? { scope: flags.scope } : {}),
    ...(flags.excludeFilesVerify.length > 0 ? { excludeFiles: flags.excludeFilesVerify } : {}),
  }
}

/**
 * Loads the policies, data and bundles of `settings` and builds a state from them; on failure
 * prints the error and sets exit code 1 (both modes refuse to start on what does not load).
 */
async function loadState<S>(
  settings: RunSettings,
  build: (loaded: LoadedState) => S,
): Promise<S | undefined> {
  try {
    const loaded = await loadInitialState({
      paths: settings.files,
      bundles: settings.bundles,
      ignore: settings.ignore,
      regoVersion: settings.regoVersion,
      ...(settings.verification ? { verification: settings.verification } : {}),
    })
    return build(loaded)
  } catch (err) {
    process.stderr.write(
      `regent run: ${err instanceof RegoErrors ? err.toString() : (err as Error).message}\n`,
    )
    process.exitCode = 1
    return undefined
  }
}

/** The interactive shell on stdin/stdout; prompts and banner only on a terminal. Exit 0 at the end. */
async function shell(settings: RunSettings): Promise<void> {
  const state = await loadState(
    settings,
    (loaded) => new ShellState(loaded, { regoVersion: settings.regoVersion, maxErrors: settings.maxErrors }),
  )
  if (!state) return
  await runShell({
    state,
    input: process.stdin,
    output: process.stdout,
    terminal: process.stdin.isTTY === true && process.stdout.isTTY === true,
    banner: `regent ${REGENT_VERSION} (OPA-compatible shell on regent's Rego engine)\nRun 'help' to see a list of commands.`,
    format: settings.format,
    historyFile: settings.historyFile,
  })
  // readline leaves a terminal's stdin referenced; let the process end.
  process.stdin.pause()
}

/** Loads, listens on every address, and stops on SIGTERM/SIGINT. Load or bind failures exit 1. */
async function serve(settings: RunSettings, logger: Logger): Promise<void> {
  const state = await loadState(
    settings,
    (loaded) => new ServerState(loaded, { regoVersion: settings.regoVersion, maxErrors: settings.maxErrors }),
  )
  if (!state) return
  const instanceId = crypto.randomUUID()
  const plugins = await startConfiguredAgent(settings.agentConfig, {
    state,
    instanceId,
    version: REGENT_VERSION,
    logger,
  })
  if (plugins === 'failed') return
  const runtime = runtimeTerm(settings.agentConfig.document)
  const appOptions = {
    state,
    logger,
    version: REGENT_VERSION,
    instanceId,
    ...(plugins ? { plugins, ...(plugins.decisionLog ? { decisionLog: plugins.decisionLog } : {}) } : {}),
    runtime,
    defaultDecision: settings.defaultDecision,
    budget: settings.budget,
    ...(settings.allowNet !== undefined ? { allowNet: settings.allowNet } : {}),
    compileBackend: stateCompileBackend(state, runtime, {
      budget: settings.budget,
      ...(settings.allowNet !== undefined ? { allowNet: settings.allowNet } : {}),
    }),
  }
  let agent: Awaited<ReturnType<typeof startAgent>>
  try {
    agent = await startAgent({
      app: appOptions,
      addresses: [
        ...settings.addrs.map((a) => ({ kind: 'tcp' as const, ...a })),
        ...settings.unixAddrs.map((a) => listenAddress('--addr', a)),
      ],
      server: settings.agent,
      ...(plugins
        ? {
            metricsRegistries: [plugins.registry],
            // OPA waits for bundles and discovery only when --ready-timeout is positive.
            ready: settings.agent.readyTimeoutSeconds > 0 ? [bundlesActivated(plugins)] : [],
          }
        : {}),
      ...(settings.agent.watch
        ? {
            watch: {
              paths: settings.files,
              ignore: settings.ignore,
              regoVersion: settings.regoVersion,
              initialIds: state
                .listPolicies()
                .map((p) => p.id)
                .filter((id) => !isBundlePolicy(id, settings)),
            },
          }
        : {}),
    })
  } catch (err) {
    await plugins?.stop()
    process.stderr.write(`regent run: cannot listen: ${(err as Error).message}\n`)
    process.exitCode = 1
    return
  }
  logger.info(
    {
      addrs: agent.urls,
      ...(agent.diagnosticUrls.length > 0 ? { diagnostic_addrs: agent.diagnosticUrls } : {}),
      policies: state.listPolicies().length,
      bundles: state.bundles.map((b) => b.name),
      budget: settings.budget,
    },
    'server started',
  )
  stopOnSignals(logger, async () => {
    await agent.stop()
    await plugins?.stop()
  })
}

// Resolves once every configured bundle (and discovery) has been activated.
function bundlesActivated(plugins: AgentPlugins): Promise<void> {
  return new Promise((resolve) => {
    const check = () => {
      if (!plugins.bundlesReady()) return
      clearInterval(timer)
      resolve()
    }
    const timer = setInterval(check, 100)
    timer.unref()
    check()
  })
}

// Bundle modules get the id `<bundle path>/<module path>` (agent/load.ts); --watch leaves them.
function isBundlePolicy(id: string, settings: RunSettings): boolean {
  return settings.bundles.some((b) => id.startsWith(`${b}/`))
}
