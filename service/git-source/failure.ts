/**
 * Why a git-backed system could not be synced: a git layer error (auth_failed,
 * reference_not_found, …) or a problem of the service's own (a secret the origin names is missing).
 * Kept in the sync state and shown as the system's status until the next good fetch.
 */
import { HttpError } from '../../core/http/index.js'
import { GitError } from '../git/index.js'
import { MissingSecretError } from '../git-origin/credentials.js'

export class SourceFailure extends Error {
  constructor(
    /** A GitErrorCode, or `missing_secret`. */
    readonly code: string,
    message: string,
  ) {
    super(message)
    this.name = 'SourceFailure'
  }
}

/** The failure an error of a sync stands for; anything unexpected is `sync_failed`. */
export function sourceFailureOf(err: unknown): SourceFailure {
  if (err instanceof SourceFailure) return err
  if (err instanceof GitError) return new SourceFailure(err.code, err.message)
  if (err instanceof MissingSecretError) return new SourceFailure('missing_secret', err.message)
  // The origin itself is refused (a folder leaving the repository): the same code the git layer uses.
  if (err instanceof HttpError && err.status === 400) return new SourceFailure('invalid_input', err.message)
  return new SourceFailure('sync_failed', err instanceof Error ? err.message : String(err))
}
