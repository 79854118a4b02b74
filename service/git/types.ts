/** Shapes shared by the git layer's files. */

/** Credentials for `http(s)://` remotes. A token is sent as the password of a basic login. */
export type HttpCredentials =
  | { kind: 'basic'; username: string; password: string }
  | {
      kind: 'token'
      token: string /** defaults to `x-access-token` (GitHub; GitLab accepts any name) */
      username?: string
    }

/** How an ssh server's host key is checked. At least one way must be given: never accepted silently. */
export interface HostKeyVerification {
  /** known_hosts lines (`host keytype base64`), or bare public keys (`keytype base64`) pinned to this remote's host. */
  knownHosts?: string
  /** `SHA256:…` fingerprints (as `ssh-keygen -lf` prints them) the host must present one of. */
  fingerprints?: string[]
  /**
   * Trust on first use: a host with no known key is accepted and its key handed to this callback,
   * which the caller persists and passes back as `knownHosts` next time. A known host whose key
   * changed is still refused.
   */
  trustOnFirstUse?: (knownHostsLines: string) => void | Promise<void>
}

/** Credentials for `ssh://` and scp-like remotes. */
export interface SshCredentials {
  /** The private key, OpenSSH or PEM format. */
  privateKey: string
  /** The key's passphrase, when it has one. */
  passphrase?: string
  hostKeys: HostKeyVerification
}

export type GitCredentials = { http: HttpCredentials } | { ssh: SshCredentials }

export interface GitLimits {
  /** Per operation (one clone, fetch, push, read), in ms. Default 60 000. */
  timeoutMs?: number
  /** Size of a mirror on disk, in bytes. Default 512 MiB. */
  maxRepositoryBytes?: number
}

export const DEFAULT_TIMEOUT_MS = 60_000
export const DEFAULT_MAX_REPOSITORY_BYTES = 512 * 1024 * 1024
