/**
 * The flags `regent eval` and `regent bench` share, as OPA's commands share them: where policies,
 * data and input come from (`-d`, `-b`, `-i`, `-I`, `--ignore`, `--v0-compatible`) and how the
 * query is read (`--stdin`, `--package`, `--import`), and the loading those flags ask for.
 */
import { readFile } from 'node:fs/promises'
import type { Command } from 'commander'
import { type LoadedPolicy, loadPolicy, parseDocument } from '../core/bundle/policy-files.js'
import type { Import } from '../core/rego/syntax/ast.js'
import { parseModule } from '../core/rego/syntax/module-parser.js'
import type { Value } from '../core/rego/values/index.js'
import { readStdin } from './stdin.js'

/** What the shared loading flags hold once parsed. */
export interface LoadingOptions {
  data: string[]
  bundle: string[]
  ignore: string[]
  input?: string
  stdinInput?: boolean
  v0Compatible?: boolean
}

/** The policies and data `-d`, `-b`, `--ignore` and `--v0-compatible` name. */
export function loadQueryPolicy(options: LoadingOptions): Promise<LoadedPolicy> {
  return loadPolicy({
    paths: options.data,
    bundles: options.bundle,
    ignore: options.ignore,
    ...(options.v0Compatible ? { v0: true } : {}),
  })
}

/** The input document of `-i` or `-I` (stdin), if any. */
export async function readQueryInput(options: LoadingOptions): Promise<Value | undefined> {
  if (options.stdinInput) return parseDocument(await readStdin(), 'stdin.json')
  if (options.input) return parseDocument(await readFile(options.input, 'utf8'), options.input)
  return undefined
}

/** Appends a repeated flag's values. */
export const collect = (v: string, prev: string[]): string[] => [...prev, v]

/** Adds the shared loading and query flags to `command`. */
export function withQueryOptions(command: Command): Command {
  return command
    .option(
      '-d, --data <path>',
      'policy or data files and directories (prefix:path to root them)',
      collect,
      [],
    )
    .option('-b, --bundle <path>', 'bundle directories or .tar.gz files', collect, [])
    .option('-i, --input <path>', 'input document (JSON or YAML)')
    .option('-I, --stdin-input', 'read the input document from stdin')
    .option('--stdin', 'read the query from stdin')
    .option('--package <path>', 'package the query is evaluated in')
    .option('--import <import>', 'import for the query (repeatable)', collect, [])
    .option('--ignore <glob>', 'file names to skip when loading', collect, [])
    .option('--v0-compatible', 'parse with Rego v0 syntax')
}

/**
 * The `--import` flags as parsed imports (validated as a module's imports are, so a bad one fails
 * with the parser's message), or none.
 */
export function parseImportFlags(imports: readonly string[]): Import[] {
  if (imports.length === 0) return []
  const text = `package __regent_query__\n${imports.map((i) => `import ${i}`).join('\n')}\n`
  return parseModule(text, { file: 'query' }).imports
}
