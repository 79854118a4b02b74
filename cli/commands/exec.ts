/**
 * `regent exec --decision PATH [-b BUNDLE]... [-d PATH]... <input path>...`: evaluates one decision
 * against each input file, as `opa exec` does. Input paths are files or directories (walked for
 * `.json`, `.yaml` and `.yml` files, in name order); each gets one entry in OPA's output
 * `{"result": [{"decision_id", "path", "result"} | {"path", "error": {code, message}}]}`. Policies
 * and data come from local bundles (`-b`), files (`-d`), and the bundles an OPA configuration names
 * (`-c`), downloaded and verified once as an agent would; status and decision-log plugins are not
 * run.
 */
import { randomUUID } from 'node:crypto'
import { readFile } from 'node:fs/promises'
import { Command, Option } from 'commander'
import { parse as parseLossless, stringify } from 'lossless-json'
import { filesUnder, loadPolicy, parseDocument } from '../../core/bundle/policy-files.js'
import { RegoError, RegoErrors } from '../../core/rego/errors.js'
import type { Policy } from '../../core/rego/eval/policy.js'
import { compilePolicy } from '../../core/rego/eval/policy.js'
import { toJSONText, type Value } from '../../core/rego/values/index.js'
import { downloadConfiguredBundles } from '../exec-bundles.js'
import { collect } from '../query-options.js'
import { parseDuration } from './eval.js'

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
  deadline: number | undefined,
) {
  let input: Value
  try {
    input = parseDocument(await readFile(file, 'utf8'), file)
  } catch (err) {
    return { path: file, error: { code: 'invalid_input', message: (err as Error).message } }
  }
  try {
    const run = await policy.prepare(query).eval({ input, ...(deadline ? { deadline } : {}) })
    const value = run.results[0]?.expressions[0]?.value
    if (value === undefined) {
      return {
        path: file,
        error: { code: 'opa_undefined_error', message: `${decision} decision was undefined` },
      }
    }
    // Through JSON text, so numbers keep every digit in the output.
    return { decision_id: randomUUID(), path: file, result: parseLossless(toJSONText(value)) }
  } catch (err) {
    const code = err instanceof RegoError ? err.code : 'internal_error'
    return { path: file, error: { code, message: (err as Error).message } }
  }
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
  return new Command('exec')
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
    .option('--timeout <duration>', 'time limit for each evaluation (e.g. 5s)')
    .option('--v0-compatible', 'parse modules with Rego v0 syntax')
    .action(async (paths: string[], options: ExecOptions) => {
      let policy: Policy
      let files: string[]
      let configured: string | undefined
      // Load everything first: a policy that does not compile is one error, not one per input.
      const downloaded = options.configFile
        ? await downloadConfiguredBundles(options.configFile).catch(fail)
        : undefined
      if (options.configFile && !downloaded) return
      try {
        configured = downloaded?.defaultDecision
        const loaded = await loadPolicy({
          paths: options.data,
          bundles: [...options.bundle, ...(downloaded?.paths ?? [])],
          ignore: options.ignore,
          ...(options.v0Compatible ? { v0: true } : {}),
        })
        policy = compilePolicy(loaded.modules, loaded.data, {})
        files = await inputFiles(paths)
      } catch (err) {
        fail(err)
        return
      } finally {
        await downloaded?.cleanup()
      }
      const chosen = options.decision ?? configured ?? DEFAULT_DECISION
      const decision = chosen.startsWith('/') ? chosen : `/${chosen}`
      let timeoutMs: number | undefined
      try {
        timeoutMs = options.timeout ? parseDuration(options.timeout) : undefined
      } catch (err) {
        process.stderr.write(`regent: ${(err as Error).message}\n`)
        process.exitCode = 2
        return
      }
      const query = decisionQuery(decision)
      const result: ExecEntry[] = []
      for (const file of files) {
        result.push(
          await evaluate(policy, query, decision, file, timeoutMs ? Date.now() + timeoutMs : undefined),
        )
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
    })
}
