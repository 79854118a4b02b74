/**
 * The flags `regent eval` and `regent bench` share, as OPA's commands share them: where policies,
 * data and input come from (`-d`, `-b`, `-i`, `-I`, `--ignore`, `--v0-compatible`) and how the
 * query is read (`--stdin`, `--package`, `--import`).
 */
import type { Command } from 'commander'

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
