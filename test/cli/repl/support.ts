/**
 * Drives the shell in process: the given text is its whole input (as if piped), and the output is
 * everything it wrote. Policies and data come from files through the same loader `regent run` uses.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Readable, Writable } from 'node:stream'
import { loadInitialState } from '../../../agent/load.js'
import { runShell } from '../../../cli/repl/shell.js'
import { ShellState } from '../../../cli/repl/state.js'

/** Options of one shell run. */
export interface ShellRun {
  /** Files to write to a temp folder and load, by name; `prefix:name` keys root data files. */
  files?: Record<string, string>
  regoVersion?: 'v0' | 'v1'
  format?: 'pretty' | 'json'
  /** Talk to the shell as a terminal would (prompts, banner `BANNER`). */
  terminal?: boolean
  /** History file for a terminal session. */
  historyFile?: string
}

/** Runs the shell on `input` (piped, unless `run.terminal`) and resolves to what it printed. */
export async function shellOutput(input: string, run: ShellRun = {}): Promise<string> {
  const dir = await mkdtemp(join(tmpdir(), 'regent-repl-'))
  try {
    const paths: string[] = []
    for (const [key, text] of Object.entries(run.files ?? {})) {
      const colon = key.indexOf(':')
      const name = colon < 0 ? key : key.slice(colon + 1)
      await writeFile(join(dir, name), text)
      paths.push(colon < 0 ? join(dir, name) : `${key.slice(0, colon)}:${join(dir, name)}`)
    }
    const regoVersion = run.regoVersion ?? 'v1'
    const loaded = await loadInitialState({ paths, bundles: [], ignore: [], regoVersion })
    const state = new ShellState(loaded, { regoVersion, maxErrors: 10 })
    let out = ''
    const output = new Writable({
      write(chunk, _encoding, done) {
        out += String(chunk)
        done()
      },
    })
    await runShell({
      state,
      input: Readable.from([input]),
      output,
      terminal: run.terminal === true,
      banner: run.terminal ? 'BANNER' : 'never shown when piped',
      ...(run.format ? { format: run.format } : {}),
      ...(run.historyFile ? { historyFile: run.historyFile } : {}),
    })
    return out
  } finally {
    await rm(dir, { recursive: true, force: true })
  }
}

/** OPA's message for a rule added in the shell. */
export const defined = (rule: string, pkg = 'repl') =>
  `Rule '${rule}' defined in package ${pkg}. Type 'show' to see rules.\n`

/** OPA's message for a rule that replaced an earlier definition. */
export const redefined = (rule: string, pkg = 'repl') =>
  `Rule '${rule}' re-defined in package ${pkg}. Type 'show' to see rules.\n`
