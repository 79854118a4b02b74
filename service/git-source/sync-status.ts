/**
 * `source_control_status` of a git-backed system's GET: what its latest syncs did, from the sync
 * state (the `git_sync` table). Read-only, beside the configuration rather than inside
 * `source_control` (docs/git.md, "Sync state in the system's GET").
 */
import type { GitSyncRow } from '../../store/service/index.js'

export interface SourceControlStatus {
  /** The commit the system is built from: the last one fetched successfully (null before any). */
  commit: string | null
  /** The full reference it was resolved from (null for a pinned commit or before any sync). */
  ref: string | null
  /** When that commit was fetched. */
  synced_at: string | null
  /** When the last sync ran, whatever its outcome. */
  last_attempt_at: string | null
  /** The last sync's failure and when it happened; null when it succeeded. */
  error: { code: string; message: string; at: string | null } | null
}

/** The status of a sync state; no state (never synced, or the origin changed since) is all nulls. */
export function sourceControlStatus(state: GitSyncRow | undefined): SourceControlStatus {
  return {
    commit: state?.commit_sha ?? null,
    ref: state?.ref ?? null,
    synced_at: state?.synced_at ?? null,
    last_attempt_at: state?.attempted_at ?? null,
    error:
      state?.error_code != null
        ? { code: state.error_code, message: state.error ?? '', at: state.attempted_at }
        : null,
  }
}
