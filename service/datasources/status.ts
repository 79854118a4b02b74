/**
 * The status of a datasource, as GET/PUT/List answer it: what its last run did. `code` is
 * `pending` (stored, never run yet), `running`, `ok` or `error`; `message` says why a run
 * failed (HTTP status, TLS, auth, timeout, decode error with position, filter error with
 * file:line); sizes are the bytes read and the items stored by the last successful run.
 */

export type DatasourceStatusCode = 'pending' | 'running' | 'ok' | 'error'

export interface DatasourceStatus {
  code: DatasourceStatusCode
  message: string
  /** When the last run started (ISO-8601), or null. */
  last_attempt: string | null
  /** When a run last stored data (or a rest push was taken), or null. */
  last_success: string | null
  /** Milliseconds the last run took, or null. */
  duration: number | null
  /** Bytes read by the last successful run, or null. */
  size: number | null
  /** Items stored by the last successful run (array length, object keys), or null. */
  items: number | null
}

/** The status of a datasource that has not run. */
export function pendingStatus(message = 'waiting for the first run'): DatasourceStatus {
  return {
    code: 'pending',
    message,
    last_attempt: null,
    last_success: null,
    duration: null,
    size: null,
    items: null,
  }
}

/** The stored status text read back (a malformed one reads as pending rather than failing a GET). */
export function parseStatus(text: string): DatasourceStatus {
  try {
    return { ...pendingStatus(), ...(JSON.parse(text) as Partial<DatasourceStatus>) }
  } catch {
    return pendingStatus()
  }
}
