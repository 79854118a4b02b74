/**
 * The one error type of `core/bundle`. Every failure a user can act on (a hostile tar entry, a
 * manifest with the wrong type, a digest that does not match) becomes a `BundleError` whose
 * message names the file or entry, and whose `code` is stable so callers (the relay's status
 * report, the CLI's exit code, the service's HTTP mapping) can branch on it without parsing text.
 */

/** Stable codes of bundle errors, grouped by the stage that raises them. */
export type BundleErrorCode =
  // archive and file tree
  | 'bundle_archive_invalid'
  | 'bundle_entry_unsafe'
  | 'bundle_entry_duplicate'
  | 'bundle_size_limit'
  | 'bundle_entry_limit'
  | 'bundle_not_found'
  // contents
  | 'bundle_manifest_invalid'
  | 'bundle_data_invalid'
  | 'bundle_data_conflict'
  | 'bundle_module_invalid'
  | 'bundle_patch_invalid'
  | 'bundle_roots_overlap'
  | 'bundle_roots_violation'
  | 'bundle_merge_conflict'
  // signatures
  | 'bundle_signature_missing'
  | 'bundle_signature_invalid'
  | 'bundle_signature_multiple'
  | 'bundle_verification_key'
  | 'bundle_scope_mismatch'
  | 'bundle_file_unsigned'
  | 'bundle_file_missing'
  | 'bundle_digest_mismatch'
  | 'bundle_hash_algorithm'
  | 'bundle_signing_error'

/** A bundle could not be read, written, signed or verified; the message names the file. */
export class BundleError extends Error {
  readonly code: BundleErrorCode

  constructor(code: BundleErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options)
    this.name = 'BundleError'
    this.code = code
  }
}

/** Shorthand used throughout the package: `throw bundleError('bundle_data_invalid', '...')`. */
export function bundleError(code: BundleErrorCode, message: string, cause?: unknown): BundleError {
  return new BundleError(code, message, cause === undefined ? undefined : { cause })
}

/** The message of any thrown value, for wrapping a library error into a `BundleError`. */
export function reason(err: unknown): string {
  return err instanceof Error ? err.message : String(err)
}
