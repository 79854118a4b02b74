/**
 * The shell's commands, as OPA's REPL has them (`repl.go`'s `builtin` table): a command is
 * recognised when the first word of a fresh input names one (case-insensitive), and never inside a
 * multi-line statement. Commands OPA has that regent's shell does not (profiling, partial evaluation,
 * wasm) answer with a hint instead of being evaluated as a query.
 */
import { writeFile } from 'node:fs/promises'
import { parseModule, parseTerm, RegoErrors } from '../../core/rego/index.js'
import { toJSONText } from '../../core/rego/values/index.js'
import { errorText } from './print.js'
import type { Outcome, Session } from './types.js'

/** One command: how it is written, what it does, and its action. */
interface Command {
  name: string
  args: string
  help: string
  run: (session: Session, args: string[]) => Outcome | Promise<Outcome>
}

const done = (): Outcome => 'done'

/** OPA's wording for a command given the wrong arguments. */
function badArgs(session: Session, message: string): Outcome {
  session.write(`code bad arguments: ${message}\n`)
  return 'done'
}

const COMMANDS: Command[] = [
  {
    name: 'show',
    args: '',
    help: 'show active module definition',
    run: (session, args) => {
      if (args.length === 0) session.write(session.state.show())
      else if (args[0] === 'debug') session.write(`${debugText(session)}\n`)
      else session.write(`unknown option '${args[0]}'\n`)
      return 'done'
    },
  },
  { name: 'show debug', args: '', help: 'show REPL settings', run: done },
  {
    name: 'unset',
    args: '<var>',
    help: 'unset rules in currently active module',
    run: (session, args) => {
      if (args.length !== 1) return badArgs(session, 'unset <var>: expects exactly one argument')
      const name = ruleArgument(args[0] as string)
      if (name === undefined) return badArgs(session, 'argument must identify a rule')
      try {
        if (!session.state.unsetRule(name)) session.write('warning: no matching rules in current module\n')
      } catch (err) {
        session.write(errorText(err))
      }
      return 'done'
    },
  },
  {
    name: 'unset-package',
    args: '<var>',
    help: 'unset packages in currently active module',
    run: (session, args) => {
      if (args.length !== 1) return badArgs(session, 'unset-package <var>: expects exactly one argument')
      let pkg: ReturnType<typeof parseModule>['package']
      try {
        pkg = parseModule(`package ${args[0]}`, { file: '' }).package
      } catch {
        return badArgs(session, 'argument must identify a package')
      }
      try {
        if (!session.state.unsetPackage(pkg)) session.write('warning: no matching package\n')
      } catch (err) {
        session.write(errorText(err))
      }
      return 'done'
    },
  },
  {
    name: 'json',
    args: '',
    help: 'set output format to JSON',
    run: (session) => {
      session.settings.format = 'json'
      return 'done'
    },
  },
  {
    name: 'pretty',
    args: '',
    help: 'set output format to pretty',
    run: (session) => {
      session.settings.format = 'pretty'
      return 'done'
    },
  },
  {
    name: 'pretty-limit',
    args: '<n>',
    help: 'set pretty value output limit',
    run: (session, args) => {
      const n = Number(args[0])
      if (args.length !== 1 || !Number.isInteger(n)) session.write('usage: pretty-limit <n>\n')
      else session.settings.prettyLimit = n
      return 'done'
    },
  },
  {
    name: 'metrics',
    args: '',
    help: 'toggle metrics',
    run: (session) => {
      session.settings.metrics = !session.settings.metrics
      return 'done'
    },
  },
  ...(['full', 'notes', 'fails'] as const).map(
    (mode): Command => ({
      name: mode === 'full' ? 'trace' : mode,
      args: '',
      help:
        mode === 'full'
          ? 'toggle full trace'
          : mode === 'notes'
            ? 'toggle notes trace'
            : 'toggle fails trace',
      run: (session) => {
        // As OPA: each toggles its own mode on, or off when it is the mode already on.
        session.settings.explain = session.settings.explain === mode ? 'off' : mode
        return 'done'
      },
    }),
  ),
  {
    name: 'strict-builtin-errors',
    args: '',
    help: 'toggle strict built-in error mode',
    run: (session) => {
      session.settings.strictBuiltinErrors = !session.settings.strictBuiltinErrors
      return 'done'
    },
  },
  {
    name: 'dump',
    args: '[path]',
    help: 'dump raw data in storage',
    run: async (session, args): Promise<Outcome> => {
      const text = `${toJSONText(session.state.data)}\n`
      if (args.length === 0) session.write(text)
      else {
        try {
          await writeFile(args[0] as string, text)
        } catch (err) {
          session.write(`error: ${(err as Error).message}\n`)
        }
      }
      return 'done'
    },
  },
  {
    name: 'help',
    args: '[topic]',
    help: 'print this message',
    run: (session, args) => {
      if (args.length === 0) session.write(helpText())
      else if (args[0] === 'input') session.write(HELP_INPUT)
      else session.write(`unknown topic '${args[0]}'\n`)
      return 'done'
    },
  },
  { name: 'exit', args: '', help: 'exit out of shell (or ctrl+d)', run: () => 'exit' },
]

/** OPA's commands the shell does not have, with what to use instead. */
const ABSENT: Record<string, string> = {
  instrument: 'use regent eval --instrument',
  profile: 'use regent eval --profile',
  types: 'no equivalent yet',
  unknown: 'use regent eval --partial',
  target: 'regent has only the rego target',
}

/**
 * The command `line` names, with its arguments, or undefined when it is a statement.
 * @example findCommand('unset p') // { run, args: ['p'] }
 */
export function findCommand(line: string): { run: (session: Session) => Promise<Outcome> } | undefined {
  const words = line.trim().split(/\s+/)
  const name = (words[0] ?? '').toLowerCase()
  const args = words.slice(1)
  const command = COMMANDS.find((c) => c.name === name)
  if (command) return { run: async (session) => command.run(session, args) }
  const instead = ABSENT[name]
  if (instead !== undefined && args.every((a) => /^[a-z]+$/.test(a))) {
    return {
      run: async (session) => {
        session.write(`error: ${name} is not supported by regent's shell (${instead})\n`)
        return 'done'
      },
    }
  }
  return undefined
}

/** The rule `unset` names: a var, or a ref whose head is data or input (OPA takes its head). */
function ruleArgument(text: string): string | undefined {
  let term: ReturnType<typeof parseTerm>
  try {
    term = parseTerm(text)
  } catch (err) {
    if (err instanceof RegoErrors || err instanceof Error) return undefined
    throw err
  }
  if (term.type === 'var') return term.value
  const head = term.type === 'ref' ? term.value[0] : undefined
  if (head?.type === 'var' && (head.value === 'data' || head.value === 'input')) return head.value
  return undefined
}

function debugText(session: Session): string {
  const s = session.settings
  const state = {
    explain: s.explain,
    metrics: s.metrics,
    instrument: false,
    profile: false,
    'strict-builtin-errors': s.strictBuiltinErrors,
  }
  return JSON.stringify(state, null, '\t')
}

const EXAMPLES: Array<[string, string]> = [
  ['data', 'show all documents'],
  ['data[x] = _', 'show all top level keys'],
  ['data.repl', 'show the documents defined in the shell'],
]

const STATEMENTS: Array<[string, string]> = [
  ['<stmt>', 'evaluate the statement'],
  ['package <term>', 'change active package'],
  ['import <term>', 'add import to active module'],
]

/** OPA's help page: examples, commands, topics; then what regent's shell leaves out. */
function helpText(): string {
  const width = Math.max(...EXAMPLES.map(([e]) => e.length)) + 1
  const rows: Array<[string, string]> = [
    ...STATEMENTS,
    ...COMMANDS.map((c): [string, string] => [c.args ? `${c.name} ${c.args}` : c.name, c.help]),
  ]
  const topics: Array<[string, string]> = [['help input', 'how to set input document']]
  const nameWidth = Math.max(...[...rows, ...topics].map(([n]) => n.length))
  const line = ([n, h]: [string, string]) => `${n.padStart(nameWidth)} : ${h}`
  return [
    '',
    'Examples',
    '========',
    '',
    ...EXAMPLES.map(([e, c]) => `> ${e.padEnd(width)} # ${c}`),
    '',
    'Commands',
    '========',
    '',
    ...rows.map(line),
    '',
    'Additional Topics',
    '=================',
    '',
    ...topics.map(line),
    '',
    'Not available in regent',
    '=======================',
    '',
    ...Object.entries(ABSENT).map(line),
    '',
  ].join('\n')
}

const HELP_INPUT = `
Input
=====

Rego allows queries to refer to documents outside of the storage layer. These
documents must be provided as inputs to the query engine. In Rego, these values
are nested under the root "input" document.

In the interactive shell, the "input" document is data.repl.input. Set it by
loading a file under that path (regent run repl.input:input.json), by defining
documents under the repl.input package, or with input := <value> in package repl.

For example:

\t# Set the whole input document.
\t> input := {"method": "POST", "path": "/some/path"}

\t# Or define a document called "params" under it.
\t> package repl.input
\t> params := {"method": "POST", "path": "/some/path"}

\t# Switch to another package and refer to it.
\t> package opa.example
\t> import input.params
\t> is_post if params.method == "POST"
\t> is_post
\ttrue
`
