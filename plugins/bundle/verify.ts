/**
 * The check a downloaded bundle must pass before it replaces the last good one: it must read as
 * a bundle (gzip, tar, per-file and inflated size limits, valid manifest and data) and its signature must
 * verify exactly as an OPA agent would verify it, one step stricter (see targets.ts). Delta
 * bundles are refused: the relay asks for snapshots and never hands an agent a delta it has no
 * base for.
 */
import {
  archiveLimits,
  type Bundle,
  BundleError,
  readBundle,
  type StreamedVerification,
  verifyBundle,
  verifyTarball,
} from '../../core/bundle/index.js'
import type { Target } from './targets.js'

/** A download that must not be promoted; `reason` is a stable code for metrics and status. */
export class BundleRejected extends Error {
  constructor(
    readonly reason: string,
    message: string,
  ) {
    super(message)
    this.name = 'BundleRejected'
  }
}

/** What the relay keeps from a verified bundle besides its bytes. */
export interface VerifiedBundle {
  revision: string
  bundle: Bundle
}

/**
 * Reads and verifies `bytes` for `target`; throws BundleRejected with the reason. With a signing
 * configuration the signature and file digests are checked first, streaming (core/bundle
 * verifyTarball), so a download the keys did not sign is refused holding at most one file;
 * only then is the bundle read whole, within `target.maxInflatedBytes`.
 */
export async function verifyDownload(bytes: Uint8Array, target: Target): Promise<VerifiedBundle> {
  const options = { sizeLimitBytes: target.sizeLimitBytes, maxInflatedBytes: target.maxInflatedBytes }
  const verification = target.skipVerification ? undefined : target.verification
  let streamed: StreamedVerification | undefined
  if (verification) {
    try {
      streamed = await verifyTarball(bytes, verification.config, archiveLimits(options))
    } catch (err) {
      throw rejection(err)
    }
    if (streamed === 'unsigned' && verification.signatureRequired) {
      throw new BundleRejected(
        'bundle_signature_missing',
        'bundle missing .signatures.json file (signing is configured, so unsigned bundles are refused)',
      )
    }
  }
  let bundle: Bundle
  try {
    bundle = await readBundle(bytes, options)
  } catch (err) {
    throw rejection(err)
  }
  if (bundle.patch && bundle.patch.data.length > 0) {
    throw new BundleRejected(
      'bundle_delta_refused',
      'delta bundles are not relayed (the relay requests snapshots)',
    )
  }
  const signed = (bundle.signatures?.signatures.length ?? 0) > 0 || bundle.signatures !== undefined
  if (!verification) {
    // OPA: signatures but no verification config at all is an error, not a pass.
    if (signed && !target.skipVerification) {
      throw new BundleRejected(
        'bundle_verification_key',
        'bundle is signed but no verification key is configured (set keys and bundles.<name>.signing)',
      )
    }
  } else if (streamed === 'deferred') {
    // A bundle with a patch file: checked on the typed bundle, as before streaming existed.
    if (!signed && verification.signatureRequired) {
      throw new BundleRejected(
        'bundle_signature_missing',
        'bundle missing .signatures.json file (signing is configured, so unsigned bundles are refused)',
      )
    }
    if (signed) {
      try {
        await verifyBundle(bundle, verification.config)
      } catch (err) {
        throw rejection(err)
      }
    }
  }
  const revision = typeof bundle.manifest.revision === 'string' ? bundle.manifest.revision : ''
  return { revision, bundle }
}

function rejection(err: unknown): BundleRejected {
  if (err instanceof BundleRejected) return err
  if (err instanceof BundleError) {
    // Name the setting that raises the bound when the whole bundle is too large.
    const hint = /^bundle inflates to more than/.test(err.message)
      ? ' (relay.bundles.max_inflated_bytes)'
      : ''
    return new BundleRejected(err.code, `${err.message}${hint}`)
  }
  return new BundleRejected('bundle_invalid', err instanceof Error ? err.message : String(err))
}
