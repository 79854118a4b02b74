/**
 * `regent build <path>...`: packages policy and data into a bundle tarball as `opa build -t rego`
 * does. Loose files and folders (`.rego` modules, `.json`/`.yaml` data placed by folder) or, with
 * `-b`, bundle folders and tarballs merged (overlapping roots fail). An input `.manifest` is kept
 * and flags override it; signed inputs are verified with `--verification-key` and the output is
 * signed with `--signing-key`. Before anything is written, every module is parsed and the set
 * compiled (the compiler `regent check` uses, limited to the built-ins of `--capabilities`), so a
 * bundle that does not compile is never built nor signed. `-O 1|2` needs entrypoints (`-e` or
 * `entrypoint: true` annotations; rules referring to one are entrypoints too unless
 * `--prune-unused`) and rewrites them by partial evaluation as `opa build -O` does (support rules
 * in `optimized/…rego`, synthetic ones under `--partial-namespace`); an entrypoint that cannot be
 * rewritten exactly is kept as written and named on stderr. `-t plan` adds `/plan.json`, OPA's
 * intermediate representation of the entrypoints (cli/build-plan.ts, docs/plan.md); `-t wasm` is
 * refused naming `-t rego`.
 */
import { existsSync, statSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { basename, extname, posix, resolve, sep } from 'node:path'
import { Command } from 'commander'
import { compileBundleModules } from '../../core/bundle/bundle-compile.js'
import {
  type Bundle,
  type BundleEntry,
  bundleFromFiles,
  combineData,
  type DataSource,
  DEFAULT_SIGNING_ALGORITHM,
  mergeBundles,
  type NamedBundle,
  readBundle,
  readBundleFiles,
  signBundle,
  type VerificationConfig,
  writeBundle,
} from '../../core/bundle/index.js'
import {
  NamespaceTakenError,
  optimizeBundle,
  UndefinedEntrypointError,
} from '../../core/bundle/optimize/optimize.js'
import { RegoErrors } from '../../core/rego/errors.js'
import type { Policy as IrPolicy } from '../../core/rego/plan/ir.js'
import { type BuildEntrypoints, buildEntrypoints, EntrypointError } from '../build-entrypoints.js'
import { PLAN_FILE, withPlan } from '../build-plan.js'
import { CapabilitiesError, loadCapabilities } from '../capabilities-option.js'
import {
  CommandError,
  type CommandIo,
  collect,
  PROCESS_IO,
  readClaimsFile,
  readKeyArgument,
  reportError,
  signingAlgorithm,
} from './sign.js'

/** Options of `regent build` (commander's camel-cased flag names). */
export interface BuildOptions {
  bundle?: boolean
  output: string
  revision?: string
  ignore?: string[]
  entrypoint?: string[]
  signingKey?: string
  signingAlg: string
  signingPlugin?: string
  claimsFile?: string
  verificationKey?: string
  verificationKeyId: string
  scope?: string
  excludeFilesVerify?: string[]
  capabilities?: string
  followSymlinks?: boolean
  debug?: boolean
  optimize: string
  pruneUnused?: boolean
  target: string
  partialNamespace?: string
  wasmIncludePrint?: boolean
}

/** Builds the `build` command. */
export function buildCommand(): Command {
  return new Command('build')
    .description('package policy and data files into a bundle')
    .argument('<path...>', 'files or folders (bundle folders or tarballs with -b)')
    .option('-b, --bundle', 'load paths as bundles (folders or .tar.gz)')
    .option('-o, --output <file>', 'bundle file to write', 'bundle.tar.gz')
    .option('-r, --revision <rev>', 'set the manifest revision')
    .option('--ignore <glob>', 'file or folder names to skip (repeatable)', collect)
    .option(
      '-e, --entrypoint <path>',
      'entrypoint slash path, e.g. authz/allow (repeatable; checked)',
      collect,
    )
    .option(
      '-t, --target <target>',
      'output target: rego, or plan (adds /plan.json, OPA IR; needs entrypoints); wasm is refused',
      'rego',
    )
    .option(
      '-O, --optimize <level>',
      'optimisation level 0-2: above 0 needs entrypoints (-e or annotations)',
      '0',
    )
    .option('--prune-unused', 'with -O: rules that refer to an entrypoint are not entrypoints themselves')
    .option('--signing-key <key>', 'HMAC secret, or path of a PEM private key, to sign the bundle')
    .option('--signing-alg <alg>', 'JWS algorithm for signing and verification', DEFAULT_SIGNING_ALGORITHM)
    .option('--signing-plugin <name>', 'not supported: regent has no signing plugins')
    .option('--claims-file <file>', 'JSON file of extra claims for the signature')
    .option('--verification-key <key>', 'HMAC secret, or path of a PEM public key, to verify signed inputs')
    .option('--verification-key-id <id>', 'key id to verify with and to sign under', 'default')
    .option('--scope <scope>', 'scope the input signatures must carry')
    .option('--exclude-files-verify <glob>', 'files that need not be signed in inputs (repeatable)', collect)
    .option('--capabilities <version-or-file>', 'capabilities JSON file or version: the built-ins allowed')
    .option('--follow-symlinks', 'follow symbolic links in input folders')
    .option(
      '--partial-namespace <ns>',
      'package of the synthetic rules -O writes (default partial)',
      'partial',
    )
    .option('--wasm-include-print', 'accepted for compatibility; only -t wasm uses it, which regent refuses')
    .option('--debug', 'print what is built to stderr')
    .action(async (paths: string[], options: BuildOptions) => {
      process.exitCode = await runBuild(paths, options)
    })
}

/** Runs `regent build`; resolves to the exit code. */
export async function runBuild(
  paths: string[],
  options: BuildOptions,
  io: CommandIo = PROCESS_IO,
): Promise<number> {
  try {
    refuseLaterFeatures(options)
    if (options.claimsFile && !options.signingKey) {
      throw new CommandError('--claims-file needs --signing-key', 2)
    }
    const algorithm = signingAlgorithm(options.signingAlg)
    const capabilities = await loadCapabilities(options.capabilities)
    const verification = options.verificationKey ? await verificationConfig(options, algorithm) : undefined
    let bundle = options.bundle
      ? await loadBundles(paths, options, verification)
      : await loadLooseFiles(paths, options, verification)
    if (options.revision !== undefined)
      bundle = { ...bundle, manifest: { ...bundle.manifest, revision: options.revision } }
    bundle = { ...bundle, signatures: undefined }
    compileBundleModules(bundle, capabilities ? { builtins: capabilities.builtins } : {})
    const entrypoints = checkEntrypoints(bundle, options, capabilities?.builtins)
    if (entrypoints && Number(options.optimize) > 0) {
      bundle = await optimize(bundle, entrypoints, options, capabilities?.builtins, io)
      if (options.revision !== undefined)
        bundle = { ...bundle, manifest: { ...bundle.manifest, revision: options.revision } }
    }
    if (options.target === 'plan' && entrypoints)
      bundle = withPlan(bundle, entrypoints, capabilities?.builtins)
    if (options.signingKey) {
      bundle = await signBundle(bundle, {
        key: await readKeyArgument(options.signingKey, '--signing-key', algorithm),
        algorithm,
        keyId: options.verificationKeyId,
        claims: options.claimsFile ? await readClaimsFile(options.claimsFile) : undefined,
      })
    }
    const bytes = await writeBundle(bundle)
    await writeFile(options.output, bytes)
    if (options.debug) debugSummary(bundle, bytes.byteLength, options, io, entrypoints)
    return 0
  } catch (err) {
    if (err instanceof RegoErrors) {
      io.stderr(`${err.toString()}\n`)
      return 1
    }
    if (
      err instanceof CapabilitiesError ||
      err instanceof EntrypointError ||
      err instanceof UndefinedEntrypointError ||
      err instanceof NamespaceTakenError
    )
      return reportError('build', new CommandError(err.message), io)
    return reportError('build', err, io)
  }
}

const TARGET_REFUSALS: Readonly<Record<string, string>> = {
  wasm: "-t wasm is not available: regent has no Wasm compiler; build -t rego (the default), which regent and opa evaluate with the same decisions, or -t plan for OPA's intermediate representation",
}

function refuseLaterFeatures(options: BuildOptions): void {
  if (options.target !== 'rego' && options.target !== 'plan') {
    const refusal = TARGET_REFUSALS[options.target]
    throw new CommandError(refusal ?? `-t ${options.target} is not a target (use rego or plan)`, 2)
  }
  if (!/^[0-2]$/.test(options.optimize))
    throw new CommandError(`-O ${options.optimize}: expected an optimisation level 0, 1 or 2`, 2)
  if (!/^[A-Za-z_]\w*(\.[A-Za-z_]\w*)*$/.test(options.partialNamespace ?? 'partial'))
    throw new CommandError(
      `--partial-namespace ${options.partialNamespace}: expected a package path such as partial`,
      2,
    )
  if (options.signingPlugin)
    throw new CommandError('--signing-plugin is not supported: regent has no signing plugins', 2)
}

/**
 * `-O` above 0 needs entrypoints, as opa build: the ones given and annotated, plus (unless
 * --prune-unused) the rules referring to them. Given `-e` paths are checked at every level.
 */
function checkEntrypoints(
  bundle: Bundle,
  options: BuildOptions,
  builtins: Parameters<typeof buildEntrypoints>[1]['builtins'],
): BuildEntrypoints | undefined {
  const level = Number(options.optimize)
  if (level === 0 && (options.entrypoint ?? []).length === 0 && options.target !== 'plan') return undefined
  const entrypoints = buildEntrypoints(bundle, {
    entrypoints: options.entrypoint ?? [],
    pruneUnused: options.pruneUnused === true,
    ...(builtins ? { builtins } : {}),
  })
  if (level === 0) return entrypoints
  if (entrypoints.all.length === 0)
    throw new CommandError(
      'bundle optimizations require at least one entrypoint (-e, or entrypoint: true in a METADATA block)',
    )
  return entrypoints
}

/**
 * `-O 1|2`: rewrites the entrypoints by partial evaluation (core/bundle/optimize/), given ones
 * first, then annotated ones, then their dependents, as opa build orders them. An entrypoint the
 * optimizer leaves as written is named on stderr with the reason; the rewritten bundle is compiled
 * once more before it is written.
 */
async function optimize(
  bundle: Bundle,
  entrypoints: BuildEntrypoints,
  options: BuildOptions,
  builtins: Parameters<typeof buildEntrypoints>[1]['builtins'],
  io: CommandIo,
): Promise<Bundle> {
  const order = [...new Set([...entrypoints.given, ...entrypoints.annotated, ...entrypoints.dependents])]
  const result = await optimizeBundle(bundle, {
    entrypoints: order,
    level: options.optimize === '1' ? 1 : 2,
    partialNamespace: options.partialNamespace ?? 'partial',
    ...(builtins ? { builtins } : {}),
  })
  for (const outcome of result.outcomes) {
    if (!outcome.optimized)
      io.stderr(
        `regent: build -O ${options.optimize}: ${outcome.entrypoint} kept as written: ${outcome.reason}\n`,
      )
    else if (options.debug) io.stderr(`optimized: ${outcome.entrypoint}\n`)
  }
  compileBundleModules(result.bundle, builtins ? { builtins } : {})
  return result.bundle
}

async function verificationConfig(options: BuildOptions, algorithm: string): Promise<VerificationConfig> {
  const key = await readKeyArgument(options.verificationKey!, '--verification-key', algorithm)
  return {
    keys: { [options.verificationKeyId]: { key, algorithm } },
    keyId: options.verificationKeyId,
    scope: options.scope,
    excludeFiles: options.excludeFilesVerify,
  }
}

/** `-b`: every path is a bundle folder or tarball; they are verified, then merged. */
async function loadBundles(paths: string[], options: BuildOptions, verification?: VerificationConfig) {
  const named: NamedBundle[] = []
  for (const path of paths)
    named.push({ name: path, bundle: await readBundleAt(path, options, verification) })
  return mergeBundles(named)
}

async function readBundleAt(path: string, options: BuildOptions, verification?: VerificationConfig) {
  if (!existsSync(path)) throw new CommandError(`${path} does not exist`)
  const readOptions = { ignore: options.ignore, followSymlinks: options.followSymlinks, verification }
  const input = statSync(path).isDirectory() ? { dir: path } : await readFile(path)
  return readBundle(input, readOptions)
}

/**
 * Without `-b`, as OPA's loader: `.rego` files are modules under the path given; `.json`,
 * `.yaml` and `.yml` files are data, top-level ones at the root of `data`, those inside a given
 * folder at their sub-folder's path; `.tar.gz` files are bundles merged in. Other files are skipped.
 */
async function loadLooseFiles(paths: string[], options: BuildOptions, verification?: VerificationConfig) {
  const modules: BundleEntry[] = []
  const data: DataSource[] = []
  const tarballs: NamedBundle[] = []
  const add = (file: BundleEntry, path: string, dataPath: string, explicit: boolean) => {
    const ext = extname(file.path)
    if (ext === '.rego') modules.push({ path, raw: file.raw })
    else if (ext === '.json' || ext === '.yaml' || ext === '.yml') {
      data.push({ dataPath, raw: file.raw, name: path, format: ext === '.json' ? 'json' : 'yaml' })
    } else if (explicit)
      throw new CommandError(`${file.path} is not a .rego, .json, .yaml, .yml or .tar.gz file`)
  }
  for (const path of paths) {
    if (!existsSync(path)) throw new CommandError(`${path} does not exist`)
    const prefix = logicalPath(path)
    if (statSync(path).isDirectory()) {
      const files = await readBundleFiles(
        { dir: path },
        { ignore: options.ignore, followSymlinks: options.followSymlinks },
      )
      for (const file of files) {
        const dir = posix.dirname(file.path)
        add(file, posix.join(prefix, file.path), dir === '.' ? '' : dir, false)
      }
    } else if (path.endsWith('.tar.gz')) {
      tarballs.push({ name: path, bundle: await readBundleAt(path, options, verification) })
    } else add({ path, raw: await readFile(path) }, prefix, '', true)
  }
  if (modules.length + data.length === 0 && tarballs.length === 0) {
    throw new CommandError(`no .rego, .json or .yaml files found in ${paths.join(', ')}`)
  }
  const loose = bundleFromFiles([...modules, ...combineData(data)])
  if (tarballs.length === 0) return loose
  const parts = modules.length + data.length > 0 ? [{ name: 'files', bundle: loose }, ...tarballs] : tarballs
  return mergeBundles(parts)
}

/**
 * The path a module is stored under: the path as given when it stays inside the working folder
 * (`policies/authz.rego`), else the last folder name (`../shared` becomes `shared`), because
 * bundle paths may not leave the bundle root.
 */
function logicalPath(path: string): string {
  const given = path
    .split(sep)
    .join('/')
    .replace(/^(\.\/)+/, '')
    .replace(/\/+$/, '')
  const safe = given !== '' && given !== '.' && !given.startsWith('/') && !given.split('/').includes('..')
  if (safe) return posix.normalize(given)
  const name = basename(resolve(path))
  return name === '' ? '.' : name
}

/** The plan names of a bundle's `plan.json` (for --debug). */
function planNames(bundle: Bundle): string[] {
  const file = bundle.files.find((f) => f.path === PLAN_FILE)
  if (!file) return []
  const policy = JSON.parse(new TextDecoder().decode(file.raw)) as IrPolicy
  return policy.plans.plans.map((p) => p.name)
}

function debugSummary(
  bundle: Bundle,
  size: number,
  options: BuildOptions,
  io: CommandIo,
  entrypoints: BuildEntrypoints | undefined,
): void {
  const lines = [
    `output: ${options.output} (${size} bytes)`,
    `revision: ${JSON.stringify(bundle.manifest.revision ?? '')}`,
    `roots: ${JSON.stringify(bundle.manifest.roots ?? [''])}`,
    ...bundle.modules.map((m) => `module: ${m.path}`),
    ...bundle.dataFiles.map((d) => `data: ${d.path}`),
    ...bundle.files.map((f) => `file: ${f.path}`),
    ...planNames(bundle).map((name) => `plan: ${name}`),
    ...(entrypoints?.given ?? []).map((e) => `entrypoint: ${e} (-e)`),
    ...(entrypoints?.annotated ?? []).map((e) => `entrypoint: ${e} (annotation)`),
    ...(entrypoints?.dependents ?? []).map((e) => `entrypoint: ${e} (refers to an entrypoint)`),
    `signed: ${bundle.signatures ? 'yes' : 'no'}`,
  ]
  io.stderr(`${lines.join('\n')}\n`)
}
