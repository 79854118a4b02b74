/**
 * `regent exec --decision PATH [-b BUNDLE]... [-d PATH]... <input path>...`: evaluates one decision
 * against each input file, as `opa exec` does. Input paths are files or directories (walked for
 * `.json`, `.yaml` and `.yml` files, in name order); each gets one entry in OPA's output
 * `{"result": [{"decision_id", "path", "result"} | {"path", "error": {code, message}}]}`. Policies
 * and data come from local bundles (`-b`), files (`-d`), and the bundles an OPA configuration names
 * (`-c`, with `--set`/`--set-file` overrides), downloaded and verified once as an agent would.
 * The configuration's `decision_logs` and `status` plugins run as `opa exec` runs them
 * (cli/exec-plugins.ts): each decision is logged, and exit waits for a bounded upload. `--timeout` and `--instruction-limit` bound each
 * evaluation; the log flags write what happens (downloads, each decision) to stderr.
 */
import { randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { Command, Option } from 'commander'
import { parse as parseLossless, stringify } from 'lossless-json'
import { filesUnder, loadPolicy, parseDocument } from '../../core/bundle/policy-files.js'
import { RegoError, RegoErrors } from '../../core/rego/errors.js'
import type { Policy } from '../../core/rego/eval/policy.js'
import { compilePolicy } from '../../core/rego/eval/policy.js'
import { type EvaluationBudget, UNLIMITED_EVALUATION_BUDGET } from '../../core/rego/index.js'
import { toJSONText, type Value } from '../../core/rego/values/index.js'
import { type CommandLog, type CommandLogFlags, commandLog, withLogFlags } from '../command-log.js'
import { budgetFromFlags } from '../evaluation-limits.js'
import { downloadConfiguredBundles } from '../exec-bundles.js'
import { type ExecPlugins, startExecPlugins } from '../exec-plugins.js'
import { collect } from '../query-options.js'

/** OPA's default decision (`default_decision` in its configuration). */
export const DEFAULT_DECISION = '/system/main'

const INPUT_FILE = /\.(json|ya?ml)$/i

interface ExecOptions {
  decision?: string
  configFile?: string
  bundle: string[]
  data: string[]
  ignore: string[]
  format: string
  fail?: boolean
  failDefined?: boolean
  failNonEmpty?: boolean
  v0Compatible?: boolean
  timeout?: string
  instructionLimit?: string
  optimize: string
  set: string[]
  setFile: string[]
}

/** One entry of the output, field order as OPA's. */
interface ExecEntry {
  decision_id?: string
  path: string
  error?: { code: string; message: string }
  result?: unknown
}

/** Every input file under `paths`: files as given, directories walked for .json/.yaml/.yml in name order. */
export function inputFiles(paths: readonly string[]): Promise<string[]> {
  return filesUnder(paths, (path) => INPUT_FILE.test(path))
}

/** `/authz/allow` (or `authz/allow`) as the query `data["authz"]["allow"]`. */
export function decisionQuery(decision: string): string {
  const segments = decision.split('/').filter((s) => s !== '')
  return `data${segments.map((s) => `[${JSON.stringify(s)}]`).join('')}`
}

async function evaluate(
  policy: Policy,
  query: string,
  decision: string,
  file: string,
  budget: EvaluationBudget,
  log: CommandLog,
  logged?: DecisionLogging,
): Promise<ExecEntry> {
  let input: Value
  try {
    input = parseDocument(await readFile(file, 'utf8'), file)
  } catch (err) {
    return { path: file, error: { code: 'invalid_input', message: (err as Error).message } }
  }
  try {
    const started = performance.now()
    const run = await policy.prepare(query).eval({ input, budget })
    const value = run.results[0]?.expressions[0]?.value
    const evalNs = Math.round((performance.now() - started) * 1e6)
    const decisionId = randomUUID()
    const resultText = value === undefined ? undefined : toJSONText(value)
    await logged?.plugins.record({
      decisionId,
      path: decision.replace(/^\/+/, ''),
      inputText: toJSONText(input),
      ...(resultText !== undefined ? { resultText } : {}),
      bundles: logged.bundles,
      metrics: { timer_rego_query_eval_ns: evalNs },
    })
    log.debug('decision evaluated', {
      path: file,
      decision,
      defined: value !== undefined,
      duration_ms: Math.round((performance.now() - started) * 1000) / 1000,
    })
    if (value === undefined) {
      return {
        path: file,
        error: { code: 'opa_undefined_error', message: `${decision} decision was undefined` },
      }
    }
    // Through JSON text, so numbers keep every digit in the output.
    return { decision_id: decisionId, path: file, result: parseLossless(resultText!) }
  } catch (err) {
    // Budget errors (eval_instruction_limit_error, eval_cancel_error) carry a code without being RegoErrors.
    const own = (err as { code?: unknown } | null)?.code
    const code = err instanceof RegoError ? err.code : typeof own === 'string' ? own : 'internal_error'
    log.error('decision failed', { path: file, decision, code })
    return { path: file, error: { code, message: (err as Error).message } }
  }
}

/** Where decisions are logged, and the bundle revisions each event names. */
interface DecisionLogging {
  plugins: ExecPlugins
  bundles: Record<string, { revision: string }>
}

function isEmptyResult(result: unknown): boolean {
  if (Array.isArray(result)) return result.length === 0
  if (result instanceof Set || result instanceof Map) return result.size === 0
  if (result !== null && typeof result === 'object') return Object.keys(result).length === 0
  return false
}

/** Reports a failure that stops the whole run (exit 1, nothing on stdout). */
function fail(err: unknown): undefined {
  process.stderr.write(`${err instanceof RegoErrors ? err.toString() : (err as Error).message}\n`)
  process.exitCode = 1
  return undefined
}

/** Builds the `exec` command. */
export function execCommand(): Command {
  const command = new Command('exec')
    .description('evaluate a decision against input files')
    .argument('<path...>', 'input files, or directories holding .json/.yaml/.yml inputs')
    .option(
      '--decision <path>',
      `decision to evaluate (slash path; default: the config's default_decision, else ${DEFAULT_DECISION})`,
    )
    .option(
      '-c, --config-file <path>',
      'OPA configuration whose bundles are downloaded from its services and verified',
    )
    .option('-b, --bundle <path>', 'bundle directories or .tar.gz files', collect, [])
    .option('-d, --data <path>', 'policy or data files and directories', collect, [])
    .option('--ignore <glob>', 'file names to skip when loading', collect, [])
    .addOption(new Option('-f, --format <format>', 'output format').choices(['json']).default('json'))
    .option('--fail', 'exit 1 when a decision is undefined or fails')
    .option('--fail-defined', 'exit 1 when a decision is defined')
    .option('--fail-non-empty', 'exit 1 when a decision is defined and not empty')
    .option('--timeout <duration>', 'time limit for each evaluation (e.g. 5s; 0: none)')
    .option('--instruction-limit <n>', 'maximum units of work per evaluation (0: none; default: none)')
    .option(
      '-O, --optimize <level>',
      'accepted for compatibility; regent evaluates the same at every level',
      '0',
    )
    .option('--set <key=value>', 'override a configuration key (dotted; repeatable; a=1,b=2)', collect, [])
    .option(
      '--set-file <key=path>',
      'set a configuration key to the text of a file (repeatable)',
      collect,
      [],
    )
    .option('--v0-compatible', 'parse modules with Rego v0 syntax')
  return withLogFlags(command, { level: 'error', format: 'json', timestamp: true }).action(
    async (paths: string[], options: ExecOptions & CommandLogFlags) => {
      let policy: Policy
      let files: string[]
      let configured: string | undefined
      let budget: EvaluationBudget
      let log: CommandLog
      let localRevisions: Record<string, { revision: string }> = {}
      try {
        if (!/^\d+$/.test(options.optimize))
          throw new Error(`-O ${options.optimize}: expected a whole number`)
        budget = budgetFromFlags(
          { timeout: options.timeout, instructionLimit: options.instructionLimit },
          { timeout: '--timeout', instructionLimit: '--instruction-limit' },
          UNLIMITED_EVALUATION_BUDGET,
        )
        log = commandLog(options)
      } catch (err) {
        process.stderr.write(`regent: ${(err as Error).message}\n`)
        process.exitCode = 2
        return
      }
      // Load everything first: a policy that does not compile is one error, not one per input.
      const fromConfig = options.configFile !== undefined || options.set.length + options.setFile.length > 0
      const downloaded = fromConfig
        ? await downloadConfiguredBundles(
            options.configFile,
            { sets: options.set, setFiles: options.setFile },
            (name, bytes) => log.info('bundle downloaded and verified', { name, bytes }),
          ).catch(fail)
        : undefined
      if (fromConfig && !downloaded) return
      let plugins: ExecPlugins | undefined
      try {
        plugins = fromConfig
          ? await startExecPlugins(
              options.configFile,
              { sets: options.set, setFiles: options.setFile },
              log,
              downloaded?.states,
            )
          : undefined
      } catch (err) {
        await downloaded?.cleanup()
        fail(err)
        return
      }
      try {
        configured = downloaded?.defaultDecision
        const loaded = await loadPolicy({
          paths: options.data,
          bundles: [...options.bundle, ...(downloaded?.paths ?? [])],
          ignore: options.ignore,
          ...(options.v0Compatible ? { v0: true } : {}),
        })
        policy = compilePolicy(loaded.modules, loaded.data, {})
        localRevisions =
          plugins?.activated(loaded.bundles.filter((b) => options.bundle.includes(b.name))) ?? {}
        files = await inputFiles(paths)
      } catch (err) {
        await plugins?.stop()
        fail(err)
        return
      } finally {
        await downloaded?.cleanup()
      }
      const chosen = options.decision ?? configured ?? DEFAULT_DECISION
      const decision = chosen.startsWith('/') ? chosen : `/${chosen}`
      const query = decisionQuery(decision)
      const result: ExecEntry[] = []
      const logged = plugins?.logsDecisions
        ? { plugins, bundles: { ...localRevisions, ...downloaded?.revisions } }
        : undefined
      try {
        for (const file of files)
          result.push(await evaluate(policy, query, decision, file, budget, log, logged))
      } finally {
        // As `opa exec` on stop: a bounded flush of the decision logs, then the final status.
        await plugins?.stop()
      }
      process.stdout.write(`${stringify({ result }, undefined, 2)}\n`)
      const failed = result.some((e) => e.error !== undefined)
      const defined = result.filter((e) => e.error === undefined)
      if (
        (options.fail && failed) ||
        (options.failDefined && defined.length > 0) ||
        (options.failNonEmpty && defined.some((e) => !isEmptyResult(e.result)))
      ) {
        process.exitCode = 1
      }
    },
  )
}
