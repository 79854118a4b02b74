/**
 * `core/bundle`: OPA bundles in and out. Bytes (gzipped tar) or a directory in, a typed `Bundle`
 * out; a `Bundle` in, gzipped tar bytes out; signing and verification of `.signatures.json` as
 * OPA does them. Shared by the relay (verify and serve), the service (build and sign) and the CLI.
 */
import { stringify as stringifyLossless } from 'lossless-json'
import { bundleFromEntries, entriesOfBundle, manifestWithDefaults } from './assemble.js'
import { loadDirectory } from './directory.js'
import { signedEntryOrder } from './file-list.js'
import { fileRole, normaliseEntryPath } from './paths.js'
import { checkBundleRoots } from './roots.js'
import { fileInfos, signFiles } from './sign.js'
import {
  type ArchiveLimits,
  DEFAULT_MAX_ENTRIES,
  DEFAULT_MAX_INFLATED_BYTES,
  DEFAULT_SIZE_LIMIT_BYTES,
  readTarball,
} from './tar-read.js'
import { writeTarball } from './tar-write.js'
import type { Bundle, BundleEntry, BundleManifest, ReadOptions, SigningOptions } from './types.js'
import { verifyBundle } from './verify.js'

export { isDelta } from './assemble.js'
export { canonicalJson } from './canonical-json.js'
export { combineData, type DataSource } from './data-combine.js'
export { BundleError, type BundleErrorCode } from './errors.js'
export { fileDigest, HASH_ALGORITHMS } from './hashing.js'
export { DEFAULT_SIGNING_ALGORITHM, SIGNING_ALGORITHMS } from './keys.js'
export { mergeBundles, type NamedBundle } from './merge.js'
export { packagePath } from './package-path.js'
export { signBundle } from './sign.js'
export { DEFAULT_MAX_ENTRIES, DEFAULT_MAX_INFLATED_BYTES, DEFAULT_SIZE_LIMIT_BYTES } from './tar-read.js'
export type {
  Bundle,
  BundleDataFile,
  BundleEntry,
  BundleFile,
  BundleManifest,
  BundleModule,
  PatchOperation,
  ReadOptions,
  SigningOptions,
  VerificationConfig,
  VerificationKey,
} from './types.js'
export { type SignaturePayload, verifyBundle } from './verify.js'
export { type StreamedVerification, verifyTarball } from './verify-stream.js'

const encoder = new TextEncoder()

/**
 * Reads a bundle from gzipped tar bytes or a directory. Roots are checked; when
 * `options.verification` is given, a snapshot bundle's signatures are verified too.
 * @throws BundleError naming the entry or file at fault.
 * @example const bundle = await readBundle(await readFile('bundle.tar.gz'))
 */
export async function readBundle(
  input: Uint8Array | { dir: string },
  options: ReadOptions = {},
): Promise<Bundle> {
  const bundle = bundleFromEntries(await readBundleFiles(input, options))
  if (options.verification) await verifyBundle(bundle, options.verification)
  return bundle
}

/**
 * The regular files of a tarball or directory, with the same limits and hostile-input checks as
 * `readBundle`, without interpreting them (for `regent sign`, which signs files as they are).
 */
export async function readBundleFiles(
  input: Uint8Array | { dir: string },
  options: ReadOptions = {},
): Promise<BundleEntry[]> {
  if (input instanceof Uint8Array) return readTarball(input, archiveLimits(options))
  const sizeLimitBytes = options.sizeLimitBytes ?? DEFAULT_SIZE_LIMIT_BYTES
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES
  return loadDirectory(input.dir, {
    sizeLimitBytes,
    maxEntries,
    ignore: options.ignore,
    followSymlinks: options.followSymlinks,
  })
}

/** The limits a tarball is read with: `options` over the defaults, the inflated size included. */
export function archiveLimits(options: ReadOptions = {}): ArchiveLimits {
  const sizeLimitBytes = options.sizeLimitBytes ?? DEFAULT_SIZE_LIMIT_BYTES
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES
  const maxInflatedBytes = options.maxInflatedBytes ?? DEFAULT_MAX_INFLATED_BYTES
  // Never more than one file at the per-file limit plus tar overhead, as before the total bound.
  const totalSizeLimitBytes = Math.min(maxInflatedBytes, sizeLimitBytes + 1024 * maxEntries)
  return { sizeLimitBytes, maxEntries, totalSizeLimitBytes }
}

/**
 * The compact JWS over `entries` (signatures files skipped), files listed in OPA's order.
 * @example const token = await signEntries(await readBundleFiles({ dir }), { key: pem })
 */
export async function signEntries(entries: readonly BundleEntry[], options: SigningOptions): Promise<string> {
  const files = entries.filter((entry) => fileRole(entry.path) !== 'signatures')
  return signFiles(fileInfos(signedEntryOrder(files)), options)
}

/** The bundle as a gzipped tarball (OPA's layout: names with a leading `/`, fixed mtime). */
export async function writeBundle(bundle: Bundle): Promise<Uint8Array> {
  return writeTarball(entriesOfBundle(bundle))
}

/**
 * A bundle from a list of files (paths normalised, roles by name), as a tarball of them reads:
 * for builders that gather files themselves, such as `regent build` without `-b`.
 */
export function bundleFromFiles(files: readonly BundleEntry[]): Bundle {
  return bundleFromEntries(files.map((file) => ({ path: normaliseEntryPath(file.path), raw: file.raw })))
}

/**
 * A bundle from in-memory parts, for builders such as the service: modules by path, one data
 * tree (written as a root `data.json`; lossless-json numbers keep their digits) or that tree's
 * JSON text already written, an optional manifest. Roots are checked. The bundle's `data` tree is
 * parsed from the text only when read: builders that only write the bundle never pay for it.
 * @example bundleFromParts({ modules: { 'authz/policy.rego': 'package authz\n' }, data: { x: 1 } })
 */
export function bundleFromParts(parts: {
  modules: Record<string, string>
  data?: Record<string, unknown>
  /** The data tree's JSON text (an object), instead of `data`. */
  dataText?: string
  /** That text as UTF-8 bytes, instead of `data` (a large text encoded a piece at a time). */
  dataBytes?: Uint8Array
  manifest?: BundleManifest
}): Bundle {
  const modules = Object.entries(parts.modules).map(([path, source]) => ({
    path: normaliseEntryPath(path),
    source,
    raw: encoder.encode(source),
  }))
  let raw: Uint8Array
  let empty: boolean
  let text: () => string
  if (parts.dataBytes !== undefined) {
    const bytes = parts.dataBytes
    raw = bytes
    empty = bytes.byteLength === 2 && bytes[0] === 0x7b && bytes[1] === 0x7d
    text = () => new TextDecoder().decode(bytes)
  } else {
    // lossless-json writes numbers held as text (LosslessNumber) as the numbers they are.
    const dataText = parts.dataText ?? stringifyLossless(parts.data ?? {}) ?? '{}'
    empty = parts.dataText === undefined ? Object.keys(parts.data ?? {}).length === 0 : dataText === '{}'
    raw = empty ? new Uint8Array() : encoder.encode(dataText)
    text = () => dataText
  }
  let data: Record<string, unknown> | undefined
  const bundle: Bundle = {
    manifest: manifestWithDefaults(parts.manifest),
    modules,
    dataFiles: empty ? [] : [{ path: 'data.json', raw }],
    get data() {
      data ??= JSON.parse(text()) as Record<string, unknown>
      return data
    },
    set data(value) {
      data = value
    },
    files: [],
  }
  checkBundleRoots(bundle)
  return bundle
}
export { type BinaryBundleResult, binaryBundleData, isBinaryBundle, toBinaryBundle } from './binary-bundle.js'
export { BinaryJsonError, binaryJsonToText, isBinaryJson } from './binary-json-read.js'
export { encodeBinaryJson } from './binary-json-write.js'
