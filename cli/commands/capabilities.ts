/**
 * `regent capabilities [--current] [--version V] [--file PATH]`: OPA's capabilities JSON (built-in
 * declarations, future keywords, features) for the engine regent runs, read from the same
 * DEFAULT_BUILTINS the evaluator and type checker use. `--version vX.Y.Z` of a release of the
 * reference engine prints the built-ins that release had (cli/opa-release-capabilities.ts). Without
 * a flag it lists the versions it knows, as `opa capabilities` does. With several flags, `--version` wins over `--file` over
 * `--current`, as in opa.
 */
import { readFile } from 'node:fs/promises'
import { Command } from 'commander'
import { builtinCapabilities, DEFAULT_BUILTINS } from '../../core/rego/builtins/registry.js'
import { CAPABILITY_FEATURES, CAPABILITY_FUTURE_KEYWORDS } from '../../core/rego/syntax/parser.js'
import { knownReleases, releaseBuiltins } from '../opa-release-capabilities.js'
import { REGENT_VERSION } from '../version-info.js'

/**
 * Keywords regent's parser accepts: the four that are default in Rego v1, `not`, whose import
 * changes what negation means (OPA 1.17), and the infix `and` / `or` (OPA 1.20).
 */
export const FUTURE_KEYWORDS = [...CAPABILITY_FUTURE_KEYWORDS]

/** Language features regent's parser supports, with OPA's feature names (`rego_v2_import`: OPA 1.22). */
export const FEATURES = [...CAPABILITY_FEATURES]

/** The capabilities document of this build, in OPA's shape. */
export function currentCapabilities(builtins = DEFAULT_BUILTINS): Record<string, unknown> {
  return {
    builtins: builtinCapabilities(builtins),
    future_keywords: FUTURE_KEYWORDS,
    wasm_abi_versions: [],
    features: FEATURES,
  }
}

function versionName(): string {
  return `v${REGENT_VERSION}`
}

/**
 * A capabilities file as `opa capabilities --file` prints it: read into OPA's Capabilities type
 * and written back, so unknown members are dropped, `future_keywords` and `wasm_abi_versions`
 * print as null when absent, and `features` and `allow_net` only when present.
 */
export function opaCapabilitiesShape(doc: Record<string, unknown>): Record<string, unknown> {
  return {
    builtins: doc.builtins,
    future_keywords: doc.future_keywords ?? null,
    wasm_abi_versions: doc.wasm_abi_versions ?? null,
    ...(doc.features !== undefined ? { features: doc.features } : {}),
    ...(doc.allow_net !== undefined ? { allow_net: doc.allow_net } : {}),
  }
}

interface CapabilitiesOptions {
  current?: boolean
  version?: string
  file?: string
}

function print(doc: unknown): void {
  process.stdout.write(`${JSON.stringify(doc, null, 2)}\n`)
}

/** Builds the `capabilities` command. */
export function capabilitiesCommand(): Command {
  return new Command('capabilities')
    .description(
      "print the capabilities (built-ins, keywords, features) of this engine, in OPA's JSON format",
    )
    .option('--current', 'print the capabilities of this version')
    .option(
      '--version <version>',
      "print the capabilities of a version: a reference engine release's built-ins, or regent's own",
    )
    .option('--file <path>', 'check and print a capabilities JSON file')
    .action(async (options: CapabilitiesOptions) => {
      // As `opa capabilities`: --version wins over --file, which wins over --current; giving
      // several is not an error (scripts written for opa may pass --current out of habit).
      if (options.version === undefined && options.file !== undefined) {
        let doc: unknown
        try {
          doc = JSON.parse(await readFile(options.file, 'utf8'))
        } catch (err) {
          process.stderr.write(
            `regent: capabilities: ${options.file}: ${err instanceof Error ? err.message : String(err)}\n`,
          )
          process.exitCode = 1
          return
        }
        if (
          typeof doc !== 'object' ||
          doc === null ||
          !Array.isArray((doc as { builtins?: unknown }).builtins)
        ) {
          process.stderr.write(
            `regent: capabilities: ${options.file}: not a capabilities document (no "builtins" list)\n`,
          )
          process.exitCode = 1
          return
        }
        print(opaCapabilitiesShape(doc as Record<string, unknown>))
        return
      }
      if (options.version !== undefined) {
        const wanted = options.version.replace(/^v/, '')
        const release = wanted === REGENT_VERSION ? DEFAULT_BUILTINS : releaseBuiltins(options.version)
        if (!release) {
          const releases = knownReleases()
          process.stderr.write(
            `regent: capabilities: no capabilities for version ${options.version}; known: ${releases[0]} to ${releases.at(-1)} (run 'regent capabilities' for the list) and ${versionName()}\n`,
          )
          process.exitCode = 1
          return
        }
        print(currentCapabilities(release))
        return
      }
      if (options.current) {
        print(currentCapabilities())
        return
      }
      process.stdout.write(`${[...knownReleases(), versionName()].join('\n')}\n`)
    })
}
