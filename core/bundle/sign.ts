/**
 * Signing a bundle as `opa build --signing-key` and `opa sign` do: one JWS whose payload lists
 * every file with its SHA-256 digest (canonical JSON for structured files), plus `keyid` when a
 * key id is given and no claims are, plus the claims. The protected header holds `alg` and `kid`.
 */
import { CompactSign } from 'jose'
import { bundleError, reason } from './errors.js'
import { signedFiles } from './file-list.js'
import { DEFAULT_HASH_ALGORITHM, fileDigest } from './hashing.js'
import { checkAlgorithm, signingKey } from './keys.js'
import type { Bundle, BundleEntry, SigningOptions } from './types.js'

/** One entry of the payload's `files`, in OPA's field order. */
export interface SignedFile {
  name: string
  hash: string
  algorithm: string
}

/** The payload's `files` for `entries`. */
export function fileInfos(entries: readonly BundleEntry[], algorithm = DEFAULT_HASH_ALGORITHM): SignedFile[] {
  return entries.map((entry) => ({
    name: entry.path,
    hash: fileDigest(entry.path, entry.raw, algorithm).toString('hex'),
    algorithm,
  }))
}

/**
 * The compact JWS for `files`. Payload keys are sorted as Go's `json.Marshal` sorts a map.
 * @throws BundleError `bundle_signing_error` when the key does not fit the algorithm.
 */
export async function signFiles(files: readonly SignedFile[], options: SigningOptions): Promise<string> {
  const algorithm = checkAlgorithm(options.algorithm, 'signing')
  const payload: Record<string, unknown> = { ...(options.claims ?? {}), files }
  if (!options.claims && options.keyId) payload.keyid = options.keyId
  if (options.scope !== undefined) payload.scope = options.scope
  const sorted = Object.fromEntries(Object.entries(payload).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)))
  const header = options.keyId ? { alg: algorithm, kid: options.keyId } : { alg: algorithm }
  try {
    return await new CompactSign(new TextEncoder().encode(JSON.stringify(sorted)))
      .setProtectedHeader(header)
      .sign(signingKey(options.key, algorithm))
  } catch (err) {
    if (err instanceof Error && err.name === 'BundleError') throw err
    throw bundleError('bundle_signing_error', `cannot sign the bundle with ${algorithm}: ${reason(err)}`, err)
  }
}

/**
 * A copy of `bundle` with a fresh `.signatures.json` over its files (any old signature dropped).
 * @example const signed = await signBundle(bundle, { key: privatePem, keyId: 'global' })
 */
export async function signBundle(bundle: Bundle, options: SigningOptions): Promise<Bundle> {
  const unsigned: Bundle = { ...bundle, signatures: undefined }
  const token = await signFiles(fileInfos(signedFiles(unsigned)), options)
  return { ...unsigned, signatures: { signatures: [token] } }
}
