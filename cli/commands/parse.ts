/**
 * `regent parse <path>`: prints a module's AST, as a tree (`pretty`) or as OPA's AST JSON
 * (`json`). `--json-include` adds or removes optional parts: `locations`, `comments` (on by
 * default), `-comments`.
 */
import { readFile } from 'node:fs/promises'
import { Command, Option } from 'commander'
import { RegoErrors } from '../../core/rego/errors.js'
import { stringifyOpaJson } from '../../core/rego/syntax/json.js'
import { parseModuleWithErrors } from '../../core/rego/syntax/module-parser.js'
import { prettyAst } from '../../core/rego/syntax/pretty.js'
import { writeErrors } from './check.js'

interface ParseOptions {
  format: string
  jsonInclude?: string
  v0Compatible?: boolean
}

/** Builds the `parse` command. */
export function parseCommand(): Command {
  return new Command('parse')
    .description('parse a Rego file and print its AST')
    .argument('<path>', 'a .rego file')
    .addOption(
      new Option('-f, --format <format>', 'output format').choices(['pretty', 'json']).default('pretty'),
    )
    .option('--json-include <parts>', 'optional JSON parts: locations, comments (prefix - to exclude)')
    .option('--v0-compatible', 'parse with Rego v0 syntax (pre-1.0 OPA)')
    .action(async (path: string, options: ParseOptions) => {
      const include = { locations: false, comments: true }
      for (const part of (options.jsonInclude ?? '')
        .split(',')
        .map((s) => s.trim())
        .filter(Boolean)) {
        const off = part.startsWith('-')
        const name = off ? part.slice(1) : part
        if (name !== 'locations' && name !== 'comments') {
          process.stderr.write(`regent: unknown --json-include part '${name}' (use locations, comments)\n`)
          process.exitCode = 2
          return
        }
        include[name] = !off
      }
      let text: string
      try {
        text = await readFile(path, 'utf8')
      } catch (err) {
        process.stderr.write(`regent: ${err instanceof Error ? err.message : String(err)}\n`)
        process.exitCode = 1
        return
      }
      const { module, errors } = parseModuleWithErrors(text, {
        file: path,
        regoVersion: options.v0Compatible ? 'v0' : 'v1',
      })
      if (!module) {
        // OPA reports a module that does not parse on stderr, keeping stdout for the AST.
        if (options.format === 'json') writeErrors(errors, options.format)
        else process.stderr.write(`${new RegoErrors(errors).toString()}\n`)
        process.exitCode = 1
        return
      }
      // With locations, OPA also prints each location's source text (base64): its cmd/parse_test.go.
      if (options.format === 'json')
        process.stdout.write(
          `${stringifyOpaJson(module, { ...include, locationText: include.locations }, 2)}\n`,
        )
      else process.stdout.write(prettyAst(module))
    })
}
