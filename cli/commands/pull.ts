/**
 * `regent pull`: downloads every policy library the token may read (`GET /v1/libraries`) into
 * the libraries folder (`--libraries`, else the session's, else `.styra/include`), one folder per
 * library, so `regent test`, `eval` and `run` can load them next to the project's policies. Local
 * edits are never overwritten without `-f/--force` (../library-files.ts). The token:
 * REGENT_SERVICE_TOKEN, else `--secret-file`, else the one `regent login` stored.
 */
import { Command } from 'commander'
import { type PulledLibrary, writeLibraries } from '../library-files.js'
import {
  type ConnectionOptions,
  cliLog,
  DEFAULT_LIBRARIES_DIR,
  DEFAULT_SESSION_FILE,
  getJson,
  readSession,
  resolveToken,
  serviceUrl,
} from '../service-session.js'
import { CommandError, type CommandIo, PROCESS_IO, reportError } from './sign.js'

/** Options of `regent pull`. */
export interface PullOptions extends ConnectionOptions {
  force?: boolean
}

/** Builds the `pull` command. */
export function pullCommand(): Command {
  return new Command('pull')
    .description('download the policy libraries of a regent service into the libraries folder')
    .option('-f, --force', 'overwrite (or remove) library files changed locally')
    .option(
      '--libraries <dir>',
      `folder to write libraries to (default: the session's, else ${DEFAULT_LIBRARIES_DIR})`,
    )
    .option('--url <url>', "the service (default: the session file's)")
    .option('--styra-config <file>', 'the session file regent login wrote', DEFAULT_SESSION_FILE)
    .option('--secret-file <file>', 'read the API token from this file (REGENT_SERVICE_TOKEN overrides it)')
    .option('--log-format <format>', 'text, json or json-pretty', 'text')
    .option('--log-level <level>', 'debug, info or error', 'info')
    .action(async (options: PullOptions) => {
      process.exitCode = await runPull(options)
    })
}

/** The list answer, checked: an array of `{id, modules: {file: source}}`. */
function librariesOf(body: unknown): PulledLibrary[] {
  const result = (body as { result?: unknown } | undefined)?.result
  if (!Array.isArray(result))
    throw new CommandError('GET /v1/libraries: the answer holds no list of libraries')
  return result.map((item, i) => {
    const { id, modules } = (item ?? {}) as { id?: unknown; modules?: unknown }
    if (typeof id !== 'string' || typeof modules !== 'object' || modules === null || Array.isArray(modules))
      throw new CommandError(`GET /v1/libraries: library ${i} is not {id, modules}`)
    for (const source of Object.values(modules))
      if (typeof source !== 'string')
        throw new CommandError(`GET /v1/libraries: library ${id} has a module that is not text`)
    return { id, modules: modules as Record<string, string> }
  })
}

/** Runs `regent pull`; resolves to the exit code. */
export async function runPull(options: PullOptions, io: CommandIo = PROCESS_IO): Promise<number> {
  try {
    const log = cliLog(options.logFormat, options.logLevel, io.stderr)
    const session = readSession(options.styraConfig ?? DEFAULT_SESSION_FILE)
    const url = serviceUrl(options, session)
    const token = resolveToken(options, session)
    const dir = options.libraries ?? session.libraries ?? DEFAULT_LIBRARIES_DIR
    const libraries = librariesOf(await getJson(`${url}/v1/libraries`, token))
    log.debug('libraries listed', { url, count: libraries.length })
    const plan = writeLibraries(dir, libraries, options.force === true)
    if (plan.conflicts.length > 0 && !options.force)
      throw new CommandError(
        `${plan.conflicts.length} file(s) in ${dir} changed since the last pull, nothing written (pull with -f to overwrite): ${plan.conflicts.join(', ')}`,
      )
    for (const rel of plan.conflicts) log.info('overwrote a local change (--force)', { file: rel })
    log.info(`Pulled ${libraries.length} libraries into ${dir}`, {
      written: plan.written.length,
      removed: plan.removed.length,
      unchanged: plan.unchanged,
    })
    return 0
  } catch (err) {
    return reportError('pull', err, io)
  }
}
