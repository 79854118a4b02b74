/**
 * `core/bundle`: OPA bundles in and out. Bytes (gzipped tar) or a directory in, a typed `Bundle`
 * out; a `Bundle` in, gzipped tar bytes out; signing and verification of `.signatures.json` as
 * OPA does them. Shared by the relay (verify and serve), the service (build and sign) and the CLI.
 */
import { bundleFromEntries, entriesOfBundle, manifestWithDefaults } from './assemble.js'
import { loadDirectory } from './directory.js'
import { normaliseEntryPath } from './paths.js'
import { checkBundleRoots } from './roots.js'
import { DEFAULT_MAX_ENTRIES, DEFAULT_SIZE_LIMIT_BYTES, readTarball } from './tar-read.js'
import { writeTarball } from './tar-write.js'
import type { Bundle, BundleManifest, ReadOptions } from './types.js'
import { verifyBundle } from './verify.js'

export { isDelta } from './assemble.js'
export { canonicalJson } from './canonical-json.js'
export { BundleError, type BundleErrorCode } from './errors.js'
export { fileDigest, HASH_ALGORITHMS } from './hashing.js'
export { DEFAULT_SIGNING_ALGORITHM, SIGNING_ALGORITHMS } from './keys.js'
export { mergeBundles } from './merge.js'
export { signBundle } from './sign.js'
export { DEFAULT_MAX_ENTRIES, DEFAULT_SIZE_LIMIT_BYTES } from './tar-read.js'
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
  const sizeLimitBytes = options.sizeLimitBytes ?? DEFAULT_SIZE_LIMIT_BYTES
  const maxEntries = options.maxEntries ?? DEFAULT_MAX_ENTRIES
  const entries =
    input instanceof Uint8Array
      ? await readTarball(input, { sizeLimitBytes, maxEntries })
      : await loadDirectory(input.dir, {
          sizeLimitBytes,
          maxEntries,
          ignore: options.ignore,
          followSymlinks: options.followSymlinks,
        })
  const bundle = bundleFromEntries(entries)
  if (options.verification) await verifyBundle(bundle, options.verification)
  return bundle
}

/** The bundle as a gzipped tarball (OPA's layout: names with a leading `/`, fixed mtime). */
export async function writeBundle(bundle: Bundle): Promise<Uint8Array> {
  return writeTarball(entriesOfBundle(bundle))
}

/**
 * A bundle from in-memory parts, for builders such as the service: modules by path, one data
 * tree (written as a root `data.json`), an optional manifest. Roots are checked.
 * @example bundleFromParts({ modules: { 'authz/policy.rego': 'package authz\n' }, data: { x: 1 } })
 */
export function bundleFromParts(parts: {
  modules: Record<string, string>
  data?: Record<string, unknown>
  manifest?: BundleManifest
}): Bundle {
  const modules = Object.entries(parts.modules).map(([path, source]) => ({
    path: normaliseEntryPath(path),
    source,
    raw: encoder.encode(source),
  }))
  const data = parts.data ?? {}
  const dataText = JSON.stringify(data)
  const bundle: Bundle = {
    manifest: manifestWithDefaults(parts.manifest),
    modules,
    dataFiles: Object.keys(data).length > 0 ? [{ path: 'data.json', raw: encoder.encode(dataText) }] : [],
    data: JSON.parse(dataText) as Record<string, unknown>,
    files: [],
  }
  checkBundleRoots(bundle)
  return bundle
}
