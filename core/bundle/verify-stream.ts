/**
 * Verifying a tarball's signature before it is read into memory: the same checks as
 * `verifyBundle` on the typed bundle, made in two streaming passes over the compressed bytes.
 * The first keeps only `.signatures.json` (and the manifest, to recognise a delta) and checks the
 * JWT; the second digests each file as it streams past (raw files chunk by chunk, structured
 * files such as `data.json` one whole file at a time, since their digest is over canonical JSON).
 * So a download that the configured keys did not sign (a gzip bomb among them) is refused while
 * holding at most one file, never the whole inflated bundle.
 */
import { createHash } from 'node:crypto'
import { MANIFEST_PATH } from './assemble.js'
import { bundleError, reason } from './errors.js'
import { fileDigest, HASH_ALGORITHMS, isStructured } from './hashing.js'
import { fileRole } from './paths.js'
import { type ArchiveLimits, readEntryBody, type StreamedEntry, walkTarball } from './tar-read.js'
import type { VerificationConfig } from './types.js'
import { SignedFileList, verifySignatureToken } from './verify.js'

const decoder = new TextDecoder()

/**
 * What the streamed check found: a signature that verifies, no signature (allowed only when
 * `config.keyId` is unset, as verifyBundle has it), or a bundle with a patch file, which is left
 * to verifyBundle on the typed bundle (a delta is never verified, as in OPA, and the typed bundle
 * signs its patch as it re-writes it).
 */
export type StreamedVerification = 'verified' | 'unsigned' | 'deferred'

/**
 * Verifies the signature of a gzipped tarball against `config` without holding more than one
 * file's bytes. Archive limits (`limits`) apply in both passes.
 * @throws BundleError with the same codes as verifyBundle, or the archive's own errors.
 */
export async function verifyTarball(
  bytes: Uint8Array,
  config: VerificationConfig,
  limits: ArchiveLimits,
): Promise<StreamedVerification> {
  const { signatures, patched } = await findSignatures(bytes, limits)
  if (patched) return 'deferred'
  if (signatures === undefined) {
    if (config.keyId) {
      throw bundleError(
        'bundle_signature_missing',
        `bundle missing .signatures.json file (verification key id ${JSON.stringify(config.keyId)} is configured)`,
      )
    }
    return 'unsigned'
  }
  const payload = await verifySignatureToken(signatures, config)
  const list = new SignedFileList(payload, config.excludeFiles ?? [])
  await walkTarball(bytes, limits, async (entry) => {
    const role = fileRole(entry.path)
    if (role === 'signatures') return
    // The typed bundle signs its manifest as `.manifest` wherever the archive had it.
    const path = role === 'manifest' ? MANIFEST_PATH : entry.path
    const algorithm = list.algorithmOf(path)
    if (algorithm === undefined) return
    list.check(path, await streamedDigest(entry, path, algorithm, limits.sizeLimitBytes))
  })
  list.finish()
  return 'verified'
}

/** First pass: the JWTs of the last signatures file, and whether there is a patch file. */
async function findSignatures(
  bytes: Uint8Array,
  limits: ArchiveLimits,
): Promise<{ signatures?: string[]; patched: boolean }> {
  let signatures: string[] | undefined
  let patched = false
  await walkTarball(bytes, limits, async (entry) => {
    const role = fileRole(entry.path)
    if (role === 'signatures') {
      signatures = parseSignatures(entry.path, await readEntryBody(entry, limits.sizeLimitBytes))
    } else if (role === 'patch') patched = true
  })
  return { signatures, patched }
}

/** The digest of one streamed file: raw files chunk by chunk, structured ones read whole. */
async function streamedDigest(
  entry: StreamedEntry,
  path: string,
  algorithm: string,
  sizeLimitBytes: number,
): Promise<Buffer> {
  const nodeName = HASH_ALGORITHMS[algorithm]
  if (!nodeName || isStructured(path)) {
    // fileDigest names an unknown algorithm and canonicalises structured files.
    return fileDigest(path, await readEntryBody(entry, sizeLimitBytes), algorithm)
  }
  const hash = createHash(nodeName)
  for await (const chunk of entry.body) hash.update(chunk)
  return hash.digest()
}

function parseSignatures(path: string, raw: Uint8Array): string[] {
  let value: { signatures?: unknown } | null
  try {
    value = JSON.parse(decoder.decode(raw)) as { signatures?: unknown } | null
  } catch (err) {
    throw bundleError('bundle_signature_invalid', `${path} is not valid JSON: ${reason(err)}`, err)
  }
  const signatures = value?.signatures
  if (!Array.isArray(signatures) || !signatures.every((s) => typeof s === 'string')) {
    throw bundleError('bundle_signature_invalid', `${path}: field signatures must be an array of strings`)
  }
  return signatures
}
