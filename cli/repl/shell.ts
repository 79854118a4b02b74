/**
 * The interactive shell of `regent run` (no `-s`): OPA's REPL on regent's engine. It reads lines
 * (prompts and a banner only on a terminal, so piped input gives just the outputs), runs commands,
 * gathers multi-line statements, and prints each result. Nothing a user types stops it: errors are
 * printed and the next line is read. It ends at `exit`, Ctrl-D or the end of the input.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { findCommand } from './commands.js'
import { execute } from './evaluate.js'
import { HISTORY_SIZE, LineReader } from './line-reader.js'
import { errorText } from './print.js'
import type { ShellState } from './state.js'
import type { Outcome, Session, ShellSettings } from './types.js'

/** What a shell runs on. */
export interface ShellOptions {
  state: ShellState
  input: NodeJS.ReadableStream
  output: NodeJS.WritableStream
  /** True on a terminal: prompts, banner, line editing. */
  terminal: boolean
  /** Shown first on a terminal (OPA: version and "Run 'help' to see a list of commands"). */
  banner: string
  format?: ShellSettings['format']
  /** On a terminal: a file of earlier lines, newest last, read at start and written at the end. */
  historyFile?: string
}

/**
 * Runs the shell until its input ends or `exit` is typed.
 * @example await runShell({ state, input: process.stdin, output: process.stdout, terminal: false, banner: '' })
 */
export async function runShell(options: ShellOptions): Promise<void> {
  const session: Session = {
    state: options.state,
    settings: {
      format: options.format ?? 'pretty',
      prettyLimit: 80,
      metrics: false,
      strictBuiltinErrors: false,
      explain: 'off',
    },
    write: (text) => {
      options.output.write(text)
    },
  }
  let buffer: string[] = []
  const history = options.terminal && options.historyFile ? await readHistory(options.historyFile) : []
  const reader = new LineReader(
    {
      input: options.input,
      output: options.output,
      terminal: options.terminal,
      history,
      complete: (word) => options.state.completions(word),
    },
    () => {
      buffer = []
    },
  )
  if (options.terminal && options.banner) options.output.write(`${options.banner}\n`)
  reader.prompt(false)
  let exited = false
  try {
    for await (const line of reader.lines()) {
      const outcome = await handleLine(session, buffer, line)
      if (outcome === 'exit') {
        exited = true
        break
      }
      if (outcome !== 'incomplete') buffer = []
      reader.prompt(buffer.length > 0)
    }
    // Input ended inside a statement: run what there is, as an empty line would.
    if (buffer.length > 0) await safely(session, () => execute(session, buffer.join('\n'), true))
    // Ctrl-D leaves the cursor after the prompt; end the line there.
    if (!exited && options.terminal) options.output.write('\n')
  } finally {
    reader.close()
    if (options.terminal && options.historyFile) await writeHistory(options.historyFile, reader.history())
  }
}

/** The lines of a history file, newest first as readline wants them; none when it cannot be read. */
async function readHistory(file: string): Promise<string[]> {
  try {
    return (await readFile(file, 'utf8'))
      .split('\n')
      .filter((l) => l.trim() !== '')
      .reverse()
      .slice(0, HISTORY_SIZE)
  } catch {
    return []
  }
}

/** Saves the history, oldest first (as OPA's liner writes it); a failure only costs the history. */
async function writeHistory(file: string, newestFirst: string[]): Promise<void> {
  try {
    await writeFile(file, `${[...newestFirst].reverse().join('\n')}\n`)
  } catch {
    // not writable (read-only home, ...): the session still worked
  }
}

/** One line: a command, the start or the continuation of a statement, or the empty line ending one. */
async function handleLine(session: Session, buffer: string[], line: string): Promise<Outcome> {
  if (buffer.length === 0) {
    if (line.trim() === '') return 'done'
    const command = findCommand(line)
    if (command) return safely(session, () => command.run(session))
    buffer.push(line)
    return safely(session, () => execute(session, line, false))
  }
  if (line.trim() === '') return safely(session, () => execute(session, buffer.join('\n'), true))
  buffer.push(line)
  return safely(session, () => execute(session, buffer.join('\n'), false))
}

/** Runs `f`, printing anything it throws: the shell never stops on an error. */
async function safely(session: Session, f: () => Promise<Outcome>): Promise<Outcome> {
  try {
    return await f()
  } catch (err) {
    session.write(errorText(err))
    return 'done'
  }
}
