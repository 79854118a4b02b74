/**
 * `regent fmt [path...]`: formats Rego like `opa fmt`. Without paths it reads stdin and writes the
 * result to stdout. `-w` rewrites files in place, `-l` lists files whose formatting differs, `-d`
 * prints a unified diff; `--fail` exits 1 when anything would change. Parse errors exit 1; a
 * formatted result that does not parse again exits 2 (`--check-result`, on by default).
 * `--v0-v1` writes modules valid in both Rego v0 and v1 (v1 syntax with `import rego.v1`);
 * `--capabilities` limits the keyword imports and `import rego.v2` to what the capabilities allow.
 */
import { readFile, writeFile } from 'node:fs/promises'
import { Command } from 'commander'
import { DEFAULT_BUILTINS } from '../../core/rego/builtins/registry.js'
import { regoV1Errors } from '../../core/rego/compiler/rego-v1-checks.js'
import { RegoErrors } from '../../core/rego/errors.js'
import { unifiedDiff } from '../../core/rego/format/diff.js'
import { formatModule } from '../../core/rego/format/formatter.js'
import type { Module } from '../../core/rego/syntax/ast.js'
import { parseModule } from '../../core/rego/syntax/module-parser.js'
import { type Capabilities, CapabilitiesError, loadCapabilities } from '../capabilities-option.js'
import { readStdin } from '../stdin.js'
import { collectRegoFiles } from './check.js'
import { invalidFormatResult, parseCheckResultFlag } from './fmt-check-result.js'

interface FmtOptions {
  diff?: boolean
  list?: boolean
  write?: boolean
  fail?: boolean
  v0Compatible?: boolean
  v0V1?: boolean
  checkResult: string | boolean
  dropV0Imports?: boolean
  capabilities?: string
}

const REGO_V1_IMPORT = /^import rego\.v1\s*(#.*)?$/m

const DEPRECATED = new Set(DEFAULT_BUILTINS.filter((b) => b.deprecated).map((b) => b.name))

/**
 * `formatted` (v1 output) with `import rego.v1` added when it lacks it, so that it also parses as
 * Rego v0: the import goes after the package line and the module is formatted again, which puts
 * it in its place among the other imports.
 */
function withRegoV1Import(formatted: string, file: string): string {
  if (REGO_V1_IMPORT.test(formatted)) return formatted
  const withImport = formatted.replace(/^(package .*)$/m, '$1\n\nimport rego.v1\n')
  return formatModule(parseModule(withImport, { file, regoVersion: 'v1' }), { regoVersion: 'v1' })
}

const STDIN = 'stdin'

function errorText(err: unknown): string {
  return err instanceof RegoErrors ? err.toString() : err instanceof Error ? err.message : String(err)
}

/** Builds the `fmt` command. */
export function fmtCommand(): Command {
  return new Command('fmt')
    .description('format Rego source files (stdin to stdout without paths)')
    .argument('[path...]', 'files or directories holding .rego files')
    .option('-d, --diff', 'print a diff of the changes formatting would make')
    .option('-l, --list', 'list files whose formatting differs')
    .option('-w, --write', 'write the formatted result back to the files')
    .option('--fail', 'exit 1 when formatting would change anything')
    .option('--v0-compatible', 'read and write Rego v0 syntax (pre-1.0 OPA)')
    .option('--v0-v1', 'read Rego v0 syntax and write modules valid in both v0 and v1 (adds import rego.v1)')
    .option(
      '--capabilities <version-or-file>',
      'capabilities JSON file or version: keyword imports and import rego.v2 it lacks are errors',
    )
    .option(
      '--check-result [bool]',
      'parse the formatted result before printing or writing it (--check-result=false to skip)',
      true,
    )
    .option('--drop-v0-imports', "leave out 'rego.v1' and 'future.keywords' imports (v1 output only)")
    .action(async (paths: string[], options: FmtOptions) => {
      let checkResult: boolean
      try {
        checkResult = parseCheckResultFlag(options.checkResult)
      } catch (err) {
        process.stderr.write(`regent: ${(err as Error).message}\n`)
        process.exitCode = 2
        return
      }
      let capabilities: Capabilities | undefined
      try {
        capabilities = await loadCapabilities(options.capabilities)
      } catch (err) {
        if (!(err instanceof CapabilitiesError)) throw err
        process.stderr.write(`regent: ${err.message}\n`)
        process.exitCode = 2
        return
      }
      const parseVersion = options.v0Compatible || options.v0V1 ? 'v0' : 'v1'
      const outVersion = options.v0Compatible && !options.v0V1 ? 'v0' : 'v1'
      // Set once a file fails to format or its result fails --check-result: as opa fmt, nothing
      // more is done.
      let invalid = false
      // opa fmt prints stdin's errors as they are (exit 1), a file's after `failed to format Rego
      // source file: ` (exit 2, cmd/fmt.go's newError) and stops at that file.
      const refuse = (msg: string, file: string): undefined => {
        if (file === STDIN) {
          process.stderr.write(`${msg}\n`)
          process.exitCode = 1
        } else {
          process.stderr.write(`failed to format Rego source file: ${msg}\n`)
          process.exitCode = 2
          invalid = true
        }
        return undefined
      }
      const format = (text: string, file: string): string | undefined => {
        let module: Module
        try {
          module = parseModule(text, {
            file,
            regoVersion: parseVersion,
            ...(capabilities?.futureKeywords ? { futureKeywords: capabilities.futureKeywords } : {}),
            ...(capabilities?.features ? { features: capabilities.features } : {}),
          })
          // A v0 module written as v1 must hold up as v1 (OPA's CheckRegoV1): no deprecated
          // built-ins, no rule named after a v1 keyword, nothing shadowing input or data.
          if (options.v0V1) {
            const errors = regoV1Errors(module, (name) => DEPRECATED.has(name))
            if (errors.length > 0) throw new RegoErrors(errors)
          }
        } catch (err) {
          return refuse(errorText(err), file)
        }
        let out: string
        try {
          out = formatModule(module, {
            regoVersion: outVersion,
            dropV0Imports: options.dropV0Imports === true,
          })
          if (options.v0V1) out = withRegoV1Import(out, file)
        } catch (err) {
          // The formatter's own errors (arity mismatches) name the file first, as format.Source does.
          return refuse(`${file}: ${errorText(err)}`, file)
        }
        // With --v0-v1 the result must parse in both versions.
        const problem = checkResult
          ? (invalidFormatResult(file, out, outVersion) ??
            (options.v0V1 ? invalidFormatResult(file, out, 'v0') : undefined))
          : undefined
        if (problem === undefined) return out
        process.stderr.write(`${problem}\n`)
        process.exitCode = 2
        invalid = true
        return undefined
      }

      if (paths.length === 0) {
        if (options.write) {
          process.stderr.write('regent: --write needs file paths (stdin is formatted to stdout)\n')
          process.exitCode = 2
          return
        }
        const text = await readStdin()
        const out = format(text, STDIN)
        if (out === undefined) return
        if (options.diff) process.stdout.write(unifiedDiff('stdin', text, out))
        else if (!options.list) process.stdout.write(out)
        if (options.fail && out !== text) process.exitCode = 1
        return
      }

      let files: string[]
      try {
        files = await collectRegoFiles(paths)
      } catch (err) {
        process.stderr.write(`regent: ${err instanceof Error ? err.message : String(err)}\n`)
        process.exitCode = 1
        return
      }
      let changed = false
      for (const file of files) {
        if (invalid) break
        const text = await readFile(file, 'utf8')
        const out = format(text, file)
        if (out === undefined) continue
        const differs = out !== text
        changed ||= differs
        if (options.list && differs) process.stdout.write(`${file}\n`)
        if (options.diff && differs) process.stdout.write(unifiedDiff(file, text, out))
        if (options.write && differs) await writeFile(file, out)
        if (!options.list && !options.diff && !options.write) process.stdout.write(out)
      }
      if (options.fail && changed && !invalid) process.exitCode = 1
    })
}
