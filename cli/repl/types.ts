/** Types shared by the files of the interactive shell (`regent run` without `-s`). */
import type { OutputFormat } from './print.js'
import type { ShellState } from './state.js'

/** The settings the shell's commands toggle (OPA's `show debug` lists them). */
export interface ShellSettings {
  /** `json` or `pretty` (the commands of the same names; `run -f` sets the first one). */
  format: OutputFormat
  /** Values longer than this are cut in pretty tables (`pretty-limit`, OPA's default 80). */
  prettyLimit: number
  /** `metrics`: print timers after each query. */
  metrics: boolean
  /** `strict-builtin-errors`: built-in errors stop the query instead of making it undefined. */
  strictBuiltinErrors: boolean
  /** `trace`, `notes`, `fails`: which evaluation trace is printed before each result, as OPA's explain modes. */
  explain: ExplainMode
}

/** OPA's explain modes as the shell's toggles set them. */
export type ExplainMode = 'off' | 'full' | 'notes' | 'fails'

/** One running shell: its modules, its settings, and where its output goes. */
export interface Session {
  readonly state: ShellState
  readonly settings: ShellSettings
  /** Writes to the shell's output (results, messages and errors all go there, as in OPA). */
  write(text: string): void
}

/** What handling one input did: `incomplete` waits for more lines; `exit` ends the shell. */
export type Outcome = 'done' | 'incomplete' | 'exit'
