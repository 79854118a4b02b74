/**
 * `regent build <path>...`: packages policy and data into a bundle tarball as `opa build -t rego`
 * does. Loose files and folders (`.rego` modules, `.json`/`.yaml` data placed by folder) or, with
 * `-b`, bundle folders and tarballs merged (overlapping roots fail). An input `.manifest` is kept
 * and flags override it; signed inputs are verified with `--verification-key` and the output is
 * signed with `--signing-key`. Before anything is written, every module is parsed and the set
 * compiled (the compiler `regent check` uses, limited to the built-ins of `--capabilities`), so a
 * bundle that does not compile is never built nor signed. Optimisation (`-O`, `--prune-unused`)
 * and the wasm and plan targets are not supported yet; they are refused with a message that says so.
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
import { RegoErrors } from '../../core/rego/errors.js'
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
      'entrypoint (repeatable; recorded, used once optimisation exists)',
      collect,
    )
    .option('-t, --target <target>', 'output target: rego (wasm and plan are not supported yet)', 'rego')
    .option('-O, --optimize <level>', 'optimisation level (only 0 for now)', '0')
    .option('--prune-unused', 'drop rules not needed by the entrypoints (not supported yet)')
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
    .option('--partial-namespace <ns>', 'namespace for partial evaluation results (not supported yet)')
    .option('--wasm-include-print', 'keep print calls in wasm (not supported yet)')
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
    if (options.debug) debugSummary(bundle, bytes.byteLength, options, io)
    return 0
  } catch (err) {
    if (err instanceof RegoErrors) {
      io.stderr(`${err.toString()}\n`)
      return 1
    }
    if (err instanceof CapabilitiesError) return reportError('build', new CommandError(err.message), io)
    return reportError('build', err, io)
  }
}

function refuseLaterFeatures(options: BuildOptions): void {
  const later = (what: string) => new CommandError(`${what} is not available yet in regent`, 2)
  if (options.target !== 'rego') {
    if (options.target === 'wasm' || options.target === 'plan') throw later(`-t ${options.target}`)
    throw new CommandError(`-t ${options.target} is not a target (use rego)`, 2)
  }
  if (!/^\d+$/.test(options.optimize))
    throw new CommandError(`-O ${options.optimize} must be a whole number`, 2)
  if (Number(options.optimize) > 0) throw later(`-O ${options.optimize} (optimisation)`)
  if (options.pruneUnused) throw later('--prune-unused')
  if (options.partialNamespace) throw later('--partial-namespace')
  if (options.wasmIncludePrint) throw later('--wasm-include-print')
  if (options.signingPlugin)
    throw new CommandError('--signing-plugin is not supported: regent has no signing plugins', 2)
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

function debugSummary(bundle: Bundle, size: number, options: BuildOptions, io: CommandIo): void {
  const lines = [
    `output: ${options.output} (${size} bytes)`,
    `revision: ${JSON.stringify(bundle.manifest.revision ?? '')}`,
    `roots: ${JSON.stringify(bundle.manifest.roots ?? [''])}`,
    ...bundle.modules.map((m) => `module: ${m.path}`),
    ...bundle.dataFiles.map((d) => `data: ${d.path}`),
    ...bundle.files.map((f) => `file: ${f.path}`),
    ...(options.entrypoint ?? []).map((e) => `entrypoint: ${e} (recorded; used once optimisation exists)`),
    `signed: ${bundle.signatures ? 'yes' : 'no'}`,
  ]
  io.stderr(`${lines.join('\n')}\n`)
}
