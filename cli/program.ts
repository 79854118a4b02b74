/**
 * The `regent` command tree. Every command lives in its own file under `commands/` and is
 * listed once here, loaded when it runs.
 */
import { Command, CommanderError } from 'commander'
import { ONE_DEFAULT_HELP } from './help.js'
import { acceptLicenseFlags } from './license-flags.js'
import { REGENT_VERSION } from './version-info.js'

/** Exit code for usage errors (unknown command or flag, bad argument), as OPA's CLI uses. */
export const USAGE_EXIT_CODE = 2

type CommandModule = Promise<Record<string, unknown>>

/**
 * Every command, in help order, with the module that builds it. A command's module (and what it
 * pulls in: the relay, the service, the Rego engine) is loaded only when that command runs, or for
 * help and unknown names, when all are: `regent version` need not load the service.
 */
const COMMANDS: ReadonlyArray<[name: string, load: () => CommandModule, factory: string]> = [
  ['version', () => import('./commands/version.js'), 'versionCommand'],
  ['service', () => import('./commands/service.js'), 'serviceCommand'],
  ['relay', () => import('./commands/relay.js'), 'relayCommand'],
  ['demo', () => import('./commands/demo.js'), 'demoCommand'],
  ['parse', () => import('./commands/parse.js'), 'parseCommand'],
  ['fmt', () => import('./commands/fmt.js'), 'fmtCommand'],
  ['check', () => import('./commands/check.js'), 'checkCommand'],
  ['lint', () => import('./commands/lint.js'), 'lintCommand'],
  ['build', () => import('./commands/build.js'), 'buildCommand'],
  ['sign', () => import('./commands/sign.js'), 'signCommand'],
  ['inspect', () => import('./commands/inspect.js'), 'inspectCommand'],
  ['bundle', () => import('./commands/bundle.js'), 'bundleCommand'],
  ['eval', () => import('./commands/eval.js'), 'evalCommand'],
  ['exec', () => import('./commands/exec.js'), 'execCommand'],
  ['test', () => import('./commands/test.js'), 'testCommand'],
  ['bench', () => import('./commands/bench.js'), 'benchCommand'],
  ['deps', () => import('./commands/deps.js'), 'depsCommand'],
  ['run', () => import('./commands/run.js'), 'runCommand'],
  ['impact', () => import('./commands/impact.js'), 'impactCommand'],
  ['capabilities', () => import('./commands/capabilities.js'), 'capabilitiesCommand'],
  ['license', () => import('./commands/license.js'), 'licenseCommand'],
  ['login', () => import('./commands/login.js'), 'loginCommand'],
  ['pull', () => import('./commands/pull.js'), 'pullCommand'],
]

/**
 * Builds the program for `argv`; `exitOverride` turns commander's exits into `CommanderError`s.
 * Only the command `argv` names is loaded; with none or an unknown one (help, suggestions), all.
 */
export async function buildProgram(argv: readonly string[] = []): Promise<Command> {
  const program = new Command('regent')
    .description('regent: an edge companion for Open Policy Agent deployments')
    .version(REGENT_VERSION, '--version', 'print the version')
    .enablePositionalOptions() // `regent capabilities --version V` is the subcommand's option
    .showSuggestionAfterError(true)
    .exitOverride()
    // Errors are printed by runCli as one line with a hint.
    .configureOutput({ outputError: () => {} })
  const named = argv.find((a) => !a.startsWith('-'))
  const wanted = COMMANDS.filter(([name]) => name === named)
  for (const [, load, factory] of wanted.length > 0 ? wanted : COMMANDS) {
    const make = (await load())[factory] as () => Command
    program.addCommand(withCliSettings(acceptLicenseFlags(make())))
  }
  return program
}

// Every command, nested ones included, reports usage errors through runCli and shows one default
// per option in its help. Positional options
// stay a root-only setting: `regent relay logs status -c FILE` must still give `relay` its `-c`.
function withCliSettings(command: Command): Command {
  command
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({ outputError: () => {} })
    .configureHelp(ONE_DEFAULT_HELP)
  for (const sub of command.commands) withCliSettings(sub)
  return command
}

/** Runs the CLI with `argv` (user arguments only) and resolves to the process exit code. */
export async function runCli(argv: string[]): Promise<number> {
  const program = await buildProgram(argv)
  if (argv.length === 0) {
    program.outputHelp()
    return 0
  }
  try {
    await program.parseAsync(argv, { from: 'user' })
    return typeof process.exitCode === 'number' ? process.exitCode : 0
  } catch (err) {
    if (!(err instanceof CommanderError)) throw err
    if (['commander.helpDisplayed', 'commander.version', 'commander.help'].includes(err.code)) return 0
    const reason = err.message.replace(/^error: /, '').replace(/\n+/g, ' ')
    process.stderr.write(`regent: ${reason} (run 'regent --help' for usage)\n`)
    return USAGE_EXIT_CODE
  }
}
