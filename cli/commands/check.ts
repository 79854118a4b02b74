/**
 * `regent check <path>...`: parses every `.rego` file under the paths and reports the errors.
 * Silent with exit 0 when everything parses and compiles; errors (pretty or OPA's JSON) and exit 1
 * otherwise. `-s` gives the type checker the JSON Schema of `input`; `--capabilities` limits the
 * built-ins; `-b` reads the paths as bundles, and a `.tar.gz` path is read as a bundle without it
 * too, as OPA's loader does. `--ignore` skips files and directories by name. `--v0-v1` checks that
 * every module is valid in both Rego v0 and Rego v1 (a module meant to move between versions:
 * v0 syntax with `import rego.v1`), reporting the errors of either parse.
 */
import { readFile } from 'node:fs/promises'
import { Command, Option } from 'commander'
import { filesUnder, isTarball, loadPolicy } from '../../core/bundle/policy-files.js'
import { RegoError, RegoErrors } from '../../core/rego/errors.js'
import { checkModules } from '../../core/rego/index.js'
import type { Module } from '../../core/rego/syntax/ast.js'
import { parseModuleWithErrors } from '../../core/rego/syntax/module-parser.js'
import { ObjectValue, type Value } from '../../core/rego/values/index.js'
import { loadCapabilities } from '../capabilities-option.js'
import { schemaCompileOptions } from '../input-schema.js'
import { collect } from '../query-options.js'
import { TEST_BUILTINS, withTestLibraries } from '../test-builtins.js'

/** Every `.rego` file under `paths` (files are taken as given), sorted within each directory. */
export function collectRegoFiles(paths: string[], ignore: readonly string[] = []): Promise<string[]> {
  return filesUnder(paths, (path) => path.endsWith('.rego'), ignore)
}

/**
 * The modules and data of bundles (`-b`), read as `regent build` and `regent eval -b` read them
 * (manifest, roots, ignore rules), with their parse errors. The data is checked against the rules,
 * as OPA does in bundle mode (without -b, data files are not read at all).
 */
async function loadBundleModules(
  paths: string[],
  v0: boolean,
  ignore: string[],
): Promise<{ modules: Map<string, Module>; data: Value; errors: RegoError[] }> {
  try {
    const loaded = await loadPolicy({ paths: [], bundles: paths, ignore, ...(v0 ? { v0: true } : {}) })
    return { modules: loaded.modules, data: loaded.data, errors: [] }
  } catch (err) {
    if (err instanceof RegoErrors) return { modules: new Map(), data: new ObjectValue(), errors: err.errors }
    throw err
  }
}

/** With --v0-v1, an error says which version's parse it comes from. */
function inVersion(error: RegoError, version: 'v0' | 'v1', options: CheckOptions): RegoError {
  if (!options.v0V1) return error
  return new RegoError(
    error.code,
    `${error.message} (Rego ${version})`,
    error.location,
    error.details,
    error.lines,
  )
}

/** Prints errors as `regent check` and `regent parse` do: OPA's `{"errors": [...]}` or pretty text. */
export function writeErrors(errors: RegoError[], format: string): void {
  if (format === 'json') {
    process.stdout.write(`${JSON.stringify({ errors: errors.map((e) => e.toJSON()) }, null, 2)}\n`)
  } else {
    process.stdout.write(`${new RegoErrors(errors).toString()}\n`)
  }
}

interface CheckOptions {
  format: string
  maxErrors: string
  v0Compatible?: boolean
  strict?: boolean
  schema?: string
  bundle?: boolean
  capabilities?: string
  ignore: string[]
  v0V1?: boolean
}

/** The Rego versions a module must parse in: v0 and v1 with --v0-v1, else the one asked for. */
function versionsOf(options: CheckOptions): Array<'v0' | 'v1'> {
  if (options.v0V1) return ['v0', 'v1']
  return [options.v0Compatible ? 'v0' : 'v1']
}

/** Builds the `check` command. */
export function checkCommand(): Command {
  return new Command('check')
    .description('check Rego source files for errors (silent when everything parses)')
    .argument('<path...>', 'files or directories holding .rego files')
    .addOption(
      new Option('-f, --format <format>', 'output format').choices(['pretty', 'json']).default('pretty'),
    )
    .option('-m, --max-errors <n>', 'stop after this many errors', '10')
    .option('--v0-compatible', 'parse with Rego v0 syntax (pre-1.0 OPA)')
    .option(
      '--v0-v1',
      'check that modules are valid in both Rego v0 and Rego v1 (e.g. v0 with import rego.v1)',
    )
    .option('-S, --strict', 'enable compiler strict mode')
    .option(
      '-s, --schema <path>',
      'JSON Schema of input (a file), or a directory of schemas for METADATA schemas annotations',
    )
    .option(
      '-b, --bundle',
      'load the paths as bundles (directories or .tar.gz files): manifest and roots are checked too',
    )
    .option('--capabilities <version-or-file>', 'capabilities JSON file or version: the built-ins allowed')
    .option(
      '--ignore <glob>',
      'skip files and directories whose name matches (repeatable; e.g. --ignore "*_test.rego")',
      collect,
      [],
    )
    .action(async (paths: string[], options: CheckOptions) => {
      const max = Number(options.maxErrors)
      if (!Number.isInteger(max) || max < 0) {
        process.stderr.write(`regent: invalid --max-errors ${options.maxErrors} (expected a whole number)\n`)
        process.exitCode = 2
        return
      }
      const limit = max === 0 ? Number.POSITIVE_INFINITY : max
      const errors: RegoError[] = []
      const parsed = new Map<string, Module>()
      let data: Value = new ObjectValue()
      let files: string[] = []
      let schema: Awaited<ReturnType<typeof schemaCompileOptions>> = {}
      let capabilities: Awaited<ReturnType<typeof loadCapabilities>>
      try {
        schema = await schemaCompileOptions(options.schema, true)
        capabilities = await loadCapabilities(options.capabilities)
        // A named tarball is a bundle, with or without -b (tarballs inside folders are skipped).
        const bundles = options.bundle ? paths : paths.filter(isTarball)
        files = options.bundle
          ? []
          : await collectRegoFiles(
              paths.filter((path) => !isTarball(path)),
              options.ignore,
            )
        for (const version of bundles.length > 0 ? versionsOf(options) : []) {
          const loaded = await loadBundleModules(bundles, version === 'v0', options.ignore)
          errors.push(...loaded.errors.map((e) => inVersion(e, version, options)))
          for (const [file, module] of loaded.modules) parsed.set(file, module)
          data = loaded.data
        }
      } catch (err) {
        process.stderr.write(`regent: ${err instanceof Error ? err.message : String(err)}\n`)
        process.exitCode = 1
        return
      }
      eachFile: for (const file of files) {
        const text = await readFile(file, 'utf8')
        for (const version of versionsOf(options)) {
          const result = parseModuleWithErrors(text, {
            file,
            regoVersion: version,
            maxErrors: Math.max(1, Math.min(limit - errors.length, 1000)),
            ...(capabilities?.futureKeywords ? { futureKeywords: capabilities.futureKeywords } : {}),
            ...(capabilities?.features ? { features: capabilities.features } : {}),
          })
          errors.push(...result.errors.map((e) => inVersion(e, version, options)))
          // The v1 parse is compiled (the last one): with --v0-v1 the module is then valid in both.
          if (result.module) parsed.set(file, result.module)
          if (errors.length >= limit) break eachFile
        }
      }
      // Compile-level checks (safety, types, conflicts, strict mode) once everything parses.
      if (errors.length === 0)
        errors.push(
          ...checkModules(
            withTestLibraries(parsed),
            {
              strict: options.strict === true,
              maxErrors: max,
              ...schema,
              // Without a capabilities file, what `regent test` and `regent eval` offer: test files
              // calling `rego.compile` or `filter.helper` check as they run. A capabilities file
              // names exactly what its target has.
              builtins: capabilities ? capabilities.builtins : TEST_BUILTINS,
            },
            data,
          ),
        )
      if (errors.length === 0) return
      const shown = errors.slice(0, limit)
      if (errors.length > limit || (errors.length === limit && (files.length > 1 || options.bundle))) {
        shown.push(new RegoError('rego_compile_error', 'error limit reached'))
      }
      writeErrors(shown, options.format)
      process.exitCode = 1
    })
}
