/**
 * How the git layer's typed errors reach an API caller: the layer's status table
 * (GIT_ERROR_STATUS), a `git_<code>` error code — so a refused git login (`git_auth_failed`) is
 * never mistaken for the caller's own token being refused (`unauthorized`) and auth, host-key and
 * network failures stay distinct — and a message that starts with the field it is about.
 * Messages are the layer's, which never carry credential values.
 */
import { HttpError } from '../../core/http/index.js'
import { GIT_ERROR_STATUS, GitError } from '../git/index.js'

/** Fields of the layer named as the request names them (paths inside the system's folder). */
export interface FieldNames {
  /** Turns a layer field (`files.policies/a.rego`) into the request's (`files.a.rego`). */
  rename?: (field: string) => string
}

/** `error` as the HTTP error to answer when it is a GitError; anything else is rethrown as is. */
export function gitHttpError(error: unknown, names: FieldNames = {}): unknown {
  if (!(error instanceof GitError)) return error
  const field = error.field === undefined ? undefined : (names.rename?.(error.field) ?? error.field)
  const message = field === undefined ? error.message : `${field}: ${error.message}`
  return new HttpError(GIT_ERROR_STATUS[error.code], `git_${error.code}`, message)
}

/** Runs `fn`, answering GitErrors as HTTP errors. */
export async function answeringGitErrors<T>(fn: () => Promise<T>, names: FieldNames = {}): Promise<T> {
  try {
    return await fn()
  } catch (error) {
    throw gitHttpError(error, names)
  }
}
