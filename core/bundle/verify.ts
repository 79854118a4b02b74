/**
 * Verifying `.signatures.json` exactly as OPA's bundle reader does (relay-protocol.md 1.6):
 * one JWT; key id from the configuration, else the token's `kid`, else its `keyid` claim; the
 * algorithm from the key's configuration, never from the token; scope equal to the configured
 * one; every file but the signatures listed (unless excluded) with a matching digest, and every
 * listed file present. Each failure is its own `BundleError` code and names the file or key.
 */
import { compactVerify, decodeProtectedHeader } from 'jose'
import { isDelta } from './assemble.js'
import { type BundleError, bundleError, reason } from './errors.js'
import { signedFiles } from './file-list.js'
import { globMatch } from './glob.js'
import { fileDigest } from './hashing.js'
import { checkAlgorithm, verificationKey } from './keys.js'
import type { Bundle, VerificationConfig } from './types.js'

/** The verified payload of a bundle signature. */
export interface SignaturePayload {
  files: Array<{ name: string; hash: string; algorithm: string }>
  keyid?: string
  scope?: string
  iat?: number
  iss?: string
  [claim: string]: unknown
}

/**
 * Verifies a snapshot bundle's signatures against `config`; resolves when the bundle may be
 * used (unsigned bundles pass unless `config.keyId` is set; delta bundles are never verified).
 * @throws BundleError whose code tells the failure and whose message names the file or key.
 */
export async function verifyBundle(bundle: Bundle, config: VerificationConfig): Promise<void> {
  if (isDelta(bundle)) return
  if (!bundle.signatures) {
    if (config.keyId) {
      throw bundleError(
        'bundle_signature_missing',
        `bundle missing .signatures.json file (verification key id ${JSON.stringify(config.keyId)} is configured)`,
      )
    }
    return
  }
  const payload = await verifySignatureToken(bundle.signatures.signatures, config)
  verifyFiles(bundle, payload, config.excludeFiles ?? [])
}

/**
 * Checks the single JWT and returns its verified payload.
 * @throws BundleError for zero or several JWTs, an unknown key, a bad signature or a scope mismatch.
 */
export async function verifySignatureToken(
  signatures: readonly string[],
  config: VerificationConfig,
): Promise<SignaturePayload> {
  if (signatures.length === 0) throw bundleError('bundle_signature_invalid', '.signatures.json: missing JWT')
  if (signatures.length > 1) {
    throw bundleError(
      'bundle_signature_multiple',
      `.signatures.json holds ${signatures.length} JWTs; exactly one is supported`,
    )
  }
  const token = signatures[0]!
  const header = decodeHeader(token)
  const unverified = decodePayload(token)
  const keyId = config.keyId || stringOr(header.kid) || stringOr(unverified.keyid)
  if (!keyId) {
    throw bundleError(
      'bundle_verification_key',
      '.signatures.json: no key id (none configured, no kid header, no keyid claim)',
    )
  }
  const keyConfig = Object.hasOwn(config.keys, keyId) ? config.keys[keyId] : undefined
  if (!keyConfig) {
    throw bundleError(
      'bundle_verification_key',
      `.signatures.json: verification key ${JSON.stringify(keyId)} not found`,
    )
  }
  const algorithm = checkAlgorithm(keyConfig.algorithm, `verification key ${JSON.stringify(keyId)}`)
  const key = verificationKey(keyConfig.key, algorithm, keyId)
  let payloadBytes: Uint8Array
  try {
    payloadBytes = (await compactVerify(token, key, { algorithms: [algorithm] })).payload
  } catch (err) {
    throw bundleError(
      'bundle_signature_invalid',
      `.signatures.json: signature does not verify with key ${JSON.stringify(keyId)} (${algorithm}): ${reason(err)}`,
      err,
    )
  }
  const payload = parsePayload(payloadBytes)
  const expectedScope = config.scope || keyConfig.scope || ''
  const scope = stringOr(payload.scope) ?? ''
  if (scope !== expectedScope) {
    throw bundleError(
      'bundle_scope_mismatch',
      `.signatures.json: scope ${JSON.stringify(scope)} does not match the expected scope ${JSON.stringify(expectedScope)}`,
    )
  }
  return payload
}

/** Steps 8-11 of OPA's algorithm: every file listed with a matching digest, nothing extra listed. */
function verifyFiles(bundle: Bundle, payload: SignaturePayload, excludeFiles: readonly string[]): void {
  const list = new SignedFileList(payload, excludeFiles)
  for (const entry of signedFiles(bundle)) {
    const algorithm = list.algorithmOf(entry.path)
    if (algorithm !== undefined) list.check(entry.path, fileDigest(entry.path, entry.raw, algorithm))
  }
  list.finish()
}

/**
 * The files a verified signature lists, checked off one by one as the bundle's files come past
 * (from a typed bundle or streamed from a tarball), in steps 8-11 of OPA's algorithm.
 */
export class SignedFileList {
  readonly #listed = new Map<string, SignaturePayload['files'][number]>()

  constructor(
    payload: SignaturePayload,
    private readonly excludeFiles: readonly string[],
  ) {
    for (const file of payload.files) this.#listed.set(normaliseName(file.name), file)
  }

  /**
   * The algorithm to digest the file at `path` with, or undefined when it is excluded.
   * @throws BundleError when the file is not listed or its entry names no algorithm.
   */
  algorithmOf(path: string): string | undefined {
    if (this.excludeFiles.some((pattern) => globMatch(pattern, path))) {
      this.#listed.delete(path)
      return undefined
    }
    const info = this.#listed.get(path)
    if (!info) {
      throw bundleError('bundle_file_unsigned', `file ${path} is not included in the bundle signature`)
    }
    if (!info.algorithm) {
      throw bundleError('bundle_hash_algorithm', `file ${path}: no hash algorithm in the bundle signature`)
    }
    return info.algorithm
  }

  /** Checks the digest of the file at `path` against the listed one. */
  check(path: string, actual: Buffer): void {
    const info = this.#listed.get(path)!
    if (!/^(?:[0-9a-fA-F]{2})*$/.test(info.hash) || !actual.equals(Buffer.from(info.hash, 'hex'))) {
      throw bundleError(
        'bundle_digest_mismatch',
        `file ${path}: digest mismatch (${info.algorithm} ${actual.toString('hex')}, signature has ${info.hash})`,
      )
    }
    this.#listed.delete(path)
  }

  /** @throws BundleError `bundle_file_missing` naming the listed files that never came. */
  finish(): void {
    if (this.#listed.size > 0) {
      const names = [...this.#listed.keys()].join(', ')
      throw bundleError(
        'bundle_file_missing',
        `file(s) ${names} specified in the bundle signature but not found in the bundle`,
      )
    }
  }
}

// NOTE(bundle): OPA strips one leading '/'; regent's reader also drops './', so names do too.
function normaliseName(name: string): string {
  let rest = name
  while (rest.startsWith('./')) rest = rest.slice(2)
  return rest.startsWith('/') ? rest.slice(1) : rest
}

function decodeHeader(token: string): { kid?: unknown } {
  try {
    return decodeProtectedHeader(token)
  } catch (err) {
    throw invalid(`the JWT header cannot be decoded: ${reason(err)}`, err)
  }
}

function decodePayload(token: string): { keyid?: unknown } {
  const part = token.split('.')[1]
  if (part === undefined) throw invalid('the JWT is not in compact form')
  return parsePayload(Buffer.from(part, 'base64url'))
}

function parsePayload(bytes: Uint8Array): SignaturePayload {
  let value: unknown
  try {
    value = JSON.parse(new TextDecoder().decode(bytes))
  } catch (err) {
    throw invalid(`the JWT payload is not JSON: ${reason(err)}`, err)
  }
  const files = (value as { files?: unknown } | null)?.files
  const ok =
    Array.isArray(files) &&
    files.every(
      (f: { name?: unknown; hash?: unknown; algorithm?: unknown } | null) =>
        typeof f?.name === 'string' &&
        typeof f.hash === 'string' &&
        (f.algorithm === undefined || typeof f.algorithm === 'string'),
    )
  if (!ok) throw invalid('the JWT payload needs files: [{name, hash, algorithm}]')
  const payload = value as SignaturePayload
  for (const file of payload.files) file.algorithm ??= ''
  return payload
}

function invalid(message: string, cause?: unknown): BundleError {
  return bundleError('bundle_signature_invalid', `.signatures.json: ${message}`, cause)
}

function stringOr(value: unknown): string | undefined {
  return typeof value === 'string' && value !== '' ? value : undefined
}
