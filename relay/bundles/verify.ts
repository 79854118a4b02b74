/**
 * The check a downloaded bundle must pass before it replaces the last good one: it must read as
 * a bundle (gzip, tar, per-file size limit, valid manifest and data) and its signature must
 * verify exactly as an OPA agent would verify it, one step stricter (see targets.ts). Delta
 * bundles are refused: the relay asks for snapshots and never hands an agent a delta it has no
 * base for.
 */
import { type Bundle, BundleError, readBundle, verifyBundle } from '../../core/bundle/index.js'
import type { Target } from '../targets.js'

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

/** Reads and verifies `bytes` for `target`; throws BundleRejected with the reason. */
export async function verifyDownload(bytes: Uint8Array, target: Target): Promise<VerifiedBundle> {
  let bundle: Bundle
  try {
    bundle = await readBundle(bytes, { sizeLimitBytes: target.sizeLimitBytes })
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
  const verification = target.verification
  if (!verification) {
    // OPA: signatures but no verification config at all is an error, not a pass.
    if (signed) {
      throw new BundleRejected(
        'bundle_verification_key',
        'bundle is signed but no verification key is configured (set keys and bundles.<name>.signing)',
      )
    }
  } else if (!signed && verification.signatureRequired) {
    throw new BundleRejected(
      'bundle_signature_missing',
      'bundle missing .signatures.json file (signing is configured, so unsigned bundles are refused)',
    )
  } else if (signed) {
    try {
      await verifyBundle(bundle, verification.config)
    } catch (err) {
      throw rejection(err)
    }
  }
  const revision = typeof bundle.manifest.revision === 'string' ? bundle.manifest.revision : ''
  return { revision, bundle }
}

function rejection(err: unknown): BundleRejected {
  if (err instanceof BundleRejected) return err
  if (err instanceof BundleError) return new BundleRejected(err.code, err.message)
  return new BundleRejected('bundle_invalid', err instanceof Error ? err.message : String(err))
}
