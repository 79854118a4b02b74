/**
 * A system's git origin (`source_control.origin`, the spec's GitRepoConfig) as the git source
 * reads it. A system is built from git when its origin names a `url`; without one it is built
 * from what is pushed to `/v1/policies` and `/v1/data`.
 */
import type { SystemRow } from '../../store/service/index.js'

export interface GitOrigin {
  url: string
  /** Branch, tag or full reference name ('' when a commit is pinned). */
  reference: string
  /** A pinned commit SHA ('' when none); it wins over `reference`. */
  commit: string
  /** Folder of the repository the system's policies and data live under ('' for the root). */
  path: string
  /** Secret id of the HTTP(S) credentials ('' for none, and for ssh). */
  credentials: string
  /** Secret ids of the ssh private key and its passphrase. */
  sshKey: string
  sshPassphrase: string
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '')

/** The git origin of a system's stored configuration, or undefined when it is not built from git. */
export function gitOriginOf(row: Pick<SystemRow, 'config'>): GitOrigin | undefined {
  let config: unknown
  try {
    config = JSON.parse(row.config)
  } catch {
    return undefined
  }
  const origin = (config as { source_control?: { origin?: Record<string, unknown> } } | null)?.source_control
    ?.origin
  if (typeof origin !== 'object' || origin === null || text(origin.url).trim() === '') return undefined
  const ssh = (origin.ssh_credentials ?? {}) as Record<string, unknown>
  return {
    url: text(origin.url).trim(),
    reference: text(origin.reference),
    commit: text(origin.commit),
    path: text(origin.path),
    credentials: text(origin.credentials),
    sshKey: text(ssh.private_key),
    sshPassphrase: text(ssh.passphrase),
  }
}

/** What a sync state belongs to: a change to any of these is a different source. */
export function originKey(origin: GitOrigin): string {
  return JSON.stringify([origin.url, origin.reference, origin.commit, origin.path])
}
