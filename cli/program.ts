/**
 * The `regent` command tree. Every command lives in its own file under `commands/` and is
 * listed once here.
 */
import { Command, CommanderError } from 'commander'
import { benchCommand } from './commands/bench.js'
import { buildCommand } from './commands/build.js'
import { capabilitiesCommand } from './commands/capabilities.js'
import { checkCommand } from './commands/check.js'
import { demoCommand } from './commands/demo.js'
import { depsCommand } from './commands/deps.js'
import { evalCommand } from './commands/eval.js'
import { execCommand } from './commands/exec.js'
import { fmtCommand } from './commands/fmt.js'
import { inspectCommand } from './commands/inspect.js'
import { parseCommand } from './commands/parse.js'
import { relayCommand } from './commands/relay.js'
import { runCommand } from './commands/run.js'
import { serviceCommand } from './commands/service.js'
import { signCommand } from './commands/sign.js'
import { testCommand } from './commands/test.js'
import { versionCommand } from './commands/version.js'
import { REGENT_VERSION } from './version-info.js'

/** Exit code for usage errors (unknown command or flag, bad argument), as OPA's CLI uses. */
export const USAGE_EXIT_CODE = 2

const COMMANDS: Array<() => Command> = [
  versionCommand,
  serviceCommand,
  relayCommand,
  demoCommand,
  parseCommand,
  fmtCommand,
  checkCommand,
  buildCommand,
  signCommand,
  inspectCommand,
  evalCommand,
  execCommand,
  testCommand,
  benchCommand,
  depsCommand,
  runCommand,
  capabilitiesCommand,
]

/** Builds the program; `exitOverride` turns commander's exits into `CommanderError`s. */
export function buildProgram(): Command {
  const program = new Command('regent')
    .description('regent: an edge companion for Open Policy Agent deployments')
    .version(REGENT_VERSION, '--version', 'print the version')
    .enablePositionalOptions() // `regent capabilities --version V` is the subcommand's option
    .showSuggestionAfterError(true)
    .exitOverride()
    // Errors are printed by runCli as one line with a hint.
    .configureOutput({ outputError: () => {} })
  for (const make of COMMANDS) program.addCommand(withCliSettings(make()))
  return program
}

// Every command, nested ones included, reports usage errors through runCli. Positional options
// stay a root-only setting: `regent relay logs status -c FILE` must still give `relay` its `-c`.
function withCliSettings(command: Command): Command {
  command
    .exitOverride()
    .showSuggestionAfterError(true)
    .configureOutput({ outputError: () => {} })
  for (const sub of command.commands) withCliSettings(sub)
  return command
}

/** Runs the CLI with `argv` (user arguments only) and resolves to the process exit code. */
export async function runCli(argv: string[]): Promise<number> {
  const program = buildProgram()
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
