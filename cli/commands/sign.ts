/**
 * `regent sign <path>... --bundle --signing-key KEY`: writes `.signatures.json` for bundle
 * directories or tarballs, as `opa sign` does (every file but the signatures listed with its
 * SHA-256 digest, canonical JSON for data and manifest files). Also home of the signing flags
 * `regent build` shares: key-or-secret arguments, claims files and error reporting.
 */
import { existsSync, statSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { Command } from 'commander'
import {
  type BundleEntry,
  BundleError,
  DEFAULT_SIGNING_ALGORITHM,
  readBundleFiles,
  SIGNING_ALGORITHMS,
  signEntries,
} from '../../core/bundle/index.js'
import { KeyFileError, readKeyOrSecret } from '../../core/key-files.js'

/** Where a command writes; tests pass their own. */
export interface CommandIo {
  stdout: (text: string) => void
  stderr: (text: string) => void
}

/** The process's own streams. */
export const PROCESS_IO: CommandIo = {
  stdout: (text) => process.stdout.write(text),
  stderr: (text) => process.stderr.write(text),
}

/** A user error: printed as one line, exit code 1 (or 2 for usage errors). */
export class CommandError extends Error {
  constructor(
    message: string,
    readonly exitCode: 1 | 2 = 1,
  ) {
    super(message)
  }
}

/** Prints `err` as `regent NAME: message` and returns the exit code; unexpected errors rethrow. */
export function reportError(name: string, err: unknown, io: CommandIo): number {
  if (err instanceof CommandError) {
    io.stderr(`regent ${name}: ${err.message}\n`)
    return err.exitCode
  }
  if (err instanceof BundleError) {
    io.stderr(`regent ${name}: ${err.message}\n`)
    return 1
  }
  throw err
}

/** Commander collector for repeatable flags. */
export function collect(value: string, previous: string[] = []): string[] {
  return [...previous, value]
}

/**
 * The value of `--signing-key` / `--verification-key`: a file's contents when it names a file
 * (a PEM key), else the value itself (an HMAC secret), as OPA reads these flags; a value that can
 * only be a path but names no file is refused with "no such file" (core/key-files.ts).
 */
export async function readKeyArgument(value: string, flag: string, algorithm: string): Promise<string> {
  try {
    return readKeyOrSecret(value, flag, algorithm)
  } catch (err) {
    if (err instanceof KeyFileError) throw new CommandError(err.message)
    throw err
  }
}

/** The claims of `--claims-file`: a JSON object. */
export async function readClaimsFile(path: string): Promise<Record<string, unknown>> {
  let value: unknown
  try {
    value = JSON.parse(await readFile(path, 'utf8'))
  } catch (err) {
    throw new CommandError(`--claims-file ${path} cannot be read as JSON: ${(err as Error).message}`)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw new CommandError(`--claims-file ${path} must hold a JSON object`)
  }
  return value as Record<string, unknown>
}

/** The canonical algorithm name of `--signing-alg`, or a usage error listing the choices. */
export function signingAlgorithm(value: string): string {
  const name = value.toUpperCase()
  if (!(SIGNING_ALGORITHMS as readonly string[]).includes(name)) {
    throw new CommandError(
      `--signing-alg ${value} is not supported (use one of ${SIGNING_ALGORITHMS.join(', ')})`,
      2,
    )
  }
  return name
}

/** Options of `regent sign`. */
export interface SignOptions {
  bundle?: boolean
  signingKey?: string
  signingAlg: string
  claimsFile?: string
  outputFilePath: string
  signingPlugin?: string
}

/** Builds the `sign` command. */
export function signCommand(): Command {
  return new Command('sign')
    .description('write .signatures.json for bundle directories or tarballs')
    .argument('<path...>', 'bundle directories or tarballs')
    .option('-b, --bundle', 'load paths as bundles (required, as for opa sign)')
    .option('--signing-key <key>', 'HMAC secret, or path of a PEM private key (RSA or ECDSA)')
    .option('--signing-alg <alg>', 'JWS algorithm', DEFAULT_SIGNING_ALGORITHM)
    .option('--claims-file <file>', 'JSON file of extra claims for the JWT payload')
    .option('-o, --output-file-path <dir>', 'folder to write .signatures.json to', '.')
    .option('--signing-plugin <name>', 'not supported: regent has no signing plugins')
    .action(async (paths: string[], options: SignOptions) => {
      process.exitCode = await runSign(paths, options)
    })
}

/** Runs `regent sign`; resolves to the exit code. */
export async function runSign(
  paths: string[],
  options: SignOptions,
  io: CommandIo = PROCESS_IO,
): Promise<number> {
  try {
    if (options.signingPlugin)
      throw new CommandError('--signing-plugin is not supported: regent has no signing plugins', 2)
    if (!options.bundle) {
      throw new CommandError('enable bundle mode (--bundle) to sign bundle files or directories', 2)
    }
    if (!options.signingKey) throw new CommandError('--signing-key is required', 2)
    const algorithm = signingAlgorithm(options.signingAlg)
    const entries: BundleEntry[] = []
    for (const path of paths) entries.push(...(await bundleFiles(path)))
    const token = await signEntries(entries, {
      key: await readKeyArgument(options.signingKey, '--signing-key', algorithm),
      algorithm,
      claims: options.claimsFile ? await readClaimsFile(options.claimsFile) : undefined,
    })
    const target = join(options.outputFilePath, '.signatures.json')
    await writeFile(target, JSON.stringify({ signatures: [token] }, null, 1))
    io.stderr(`wrote ${target} (${entries.length} files signed with ${algorithm})\n`)
    return 0
  } catch (err) {
    return reportError('sign', err, io)
  }
}

/** Every file of a bundle directory or tarball except its signatures. */
async function bundleFiles(path: string): Promise<BundleEntry[]> {
  if (!existsSync(path)) throw new CommandError(`${path} does not exist`)
  const entries = await readBundleFiles(statSync(path).isDirectory() ? { dir: path } : await readFile(path))
  return entries.filter((entry) => !entry.path.endsWith('signatures.json'))
}
