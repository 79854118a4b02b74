/**
 * Reading the shell's input: lines from a stream through node:readline, OPA's prompts on a
 * terminal (`> `, and `| ` while a statement continues), nothing but the output when piped. Lines
 * are gathered into one statement while brackets are open or the parser asks for more (OPA's REPL
 * keeps buffering while the text does not parse); an empty line ends a continuation.
 */
import { createInterface, type Interface } from 'node:readline'

/** OPA's prompts. */
export const PROMPT = '> '
export const CONTINUATION_PROMPT = '| '

/** How far a text's brackets are open. */
export interface OpenState {
  /** Open `(`, `[` and `{` not yet closed (negative when more were closed than opened). */
  depth: number
  /** True inside a raw string (a backtick string may span lines). */
  inRawString: boolean
}

/**
 * Scans `text` for open brackets, skipping strings and comments.
 * @example openState('allow if {').depth // 1
 */
export function openState(text: string): OpenState {
  let depth = 0
  let i = 0
  while (i < text.length) {
    const c = text[i]
    if (c === '#') {
      const nl = text.indexOf('\n', i)
      i = nl < 0 ? text.length : nl + 1
    } else if (c === '"') {
      i++
      while (i < text.length && text[i] !== '"' && text[i] !== '\n') i += text[i] === '\\' ? 2 : 1
      i++
    } else if (c === '`') {
      const close = text.indexOf('`', i + 1)
      if (close < 0) return { depth, inRawString: true }
      i = close + 1
    } else {
      if (c === '(' || c === '[' || c === '{') depth++
      else if (c === ')' || c === ']' || c === '}') depth--
      i++
    }
  }
  return { depth, inRawString: false }
}

/** True while `text` cannot be complete because of its brackets or an unterminated raw string. */
export function bracketsOpen(text: string): boolean {
  const s = openState(text)
  return s.depth > 0 || s.inRawString
}

/** Where the reader writes prompts, and whether it talks to a terminal. */
export interface LineReaderOptions {
  input: NodeJS.ReadableStream
  output: NodeJS.WritableStream
  /** Prompts, the banner and line editing only on a terminal. */
  terminal: boolean
  /** Earlier lines, newest first, for the up arrow (terminal only). */
  history?: string[]
  /** Candidates for the word before the cursor (Tab, terminal only). */
  complete?: (word: string) => string[]
}

/** Lines kept in the history (OPA's liner keeps 1000). */
export const HISTORY_SIZE = 1000

/**
 * The lines of `input`, one at a time, with the prompt written before each read on a terminal.
 * `prompt(continuing)` is called before every line so the caller picks `> ` or `| `. Ctrl-C on a
 * terminal calls `onInterrupt` (OPA clears the pending statement) and prompts again.
 */
export class LineReader {
  readonly #rl: Interface
  readonly #terminal: boolean

  constructor(options: LineReaderOptions, onInterrupt: () => void) {
    this.#terminal = options.terminal
    const complete = options.complete
    this.#rl = createInterface({
      input: options.input,
      ...(options.terminal
        ? {
            output: options.output,
            terminal: true,
            history: options.history ?? [],
            historySize: HISTORY_SIZE,
            ...(complete ? { completer: (line: string) => completeLine(line, complete) } : {}),
          }
        : { terminal: false }),
      crlfDelay: Number.POSITIVE_INFINITY,
    })
    if (options.terminal) {
      this.#rl.on('SIGINT', () => {
        onInterrupt()
        options.output.write('\n')
        this.#rl.setPrompt(PROMPT)
        this.#rl.prompt()
      })
    }
  }

  /** Shows the prompt (terminal only). */
  prompt(continuing: boolean): void {
    if (!this.#terminal) return
    this.#rl.setPrompt(continuing ? CONTINUATION_PROMPT : PROMPT)
    this.#rl.prompt()
  }

  /** The lines, until the input ends (Ctrl-D) or {@link LineReader.close} is called. */
  lines(): AsyncIterableIterator<string> {
    return this.#rl[Symbol.asyncIterator]()
  }

  /** The session's lines, newest first (what `history` started with included). */
  history(): string[] {
    return [...((this.#rl as Interface & { history?: string[] }).history ?? [])]
  }

  /** Stops reading. */
  close(): void {
    this.#rl.close()
  }
}

/** readline's completer: candidates for the last word of `line`, and that word. */
function completeLine(line: string, complete: (word: string) => string[]): [string[], string] {
  const word = /[\w.[\]"]*$/.exec(line)?.[0] ?? ''
  return [complete(word), word]
}
