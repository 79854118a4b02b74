/**
 * Typed errors of the git layer. Every failure a caller can act on has its own stable code, so
 * routes map them to HTTP statuses and system statuses without reading message text.
 * Messages never carry credential values: they are built from redacted git output.
 */

export type GitErrorCode =
  /** The remote refused the credentials (HTTP 401/403, ssh publickey denied, wrong passphrase). */
  | 'auth_failed'
  /** The ssh host key is unknown (no configured key, no trust-on-first-use) or does not match. */
  | 'host_key_rejected'
  /** A branch, tag or commit that does not exist. */
  | 'reference_not_found'
  /** A path under the tree that does not exist. */
  | 'path_not_found'
  /** The repository does not exist or cannot be reached (DNS, refused connection, 404). */
  | 'repository_unreachable'
  /** The operation ran past its time limit; its processes were killed. */
  | 'timeout'
  /** The repository or a file is over its size limit. */
  | 'too_large'
  /** A push lost a race (non-fast-forward) even after one retry on the new head. */
  | 'conflict'
  /** The remote refused a push for another reason (a hook, a protected branch). */
  | 'push_rejected'
  /** Input the layer refuses: malformed or unsupported URL, bad reference name, escaping path, binary file. */
  | 'invalid_input'
  /** Anything else git reported. */
  | 'git_failed'

export class GitError extends Error {
  constructor(
    readonly code: GitErrorCode,
    message: string,
    /** The field or path the error is about, when there is one. */
    readonly field?: string,
  ) {
    super(message)
    this.name = 'GitError'
  }
}

/** The HTTP status a management route answers for each code (the routes use it; kept here so it stays in step). */
export const GIT_ERROR_STATUS: Record<GitErrorCode, 400 | 401 | 404 | 409 | 413 | 422 | 502 | 504> = {
  auth_failed: 401,
  host_key_rejected: 502,
  reference_not_found: 404,
  path_not_found: 404,
  repository_unreachable: 502,
  timeout: 504,
  too_large: 413,
  conflict: 409,
  push_rejected: 409,
  invalid_input: 400,
  git_failed: 502,
}

export const invalidInput = (field: string, message: string) => new GitError('invalid_input', message, field)
export const referenceNotFound = (reference: string) =>
  new GitError('reference_not_found', `reference ${JSON.stringify(reference)} not found`, 'reference')
export const pathNotFound = (path: string) =>
  new GitError('path_not_found', `path ${JSON.stringify(path)} not found in the tree`, 'path')
export const tooLarge = (message: string, field?: string) => new GitError('too_large', message, field)
export const timedOut = (what: string, ms: number) =>
  new GitError('timeout', `git ${what} did not finish within ${ms} ms; it was stopped`)
