/**
 * The git credentials of an origin, read from the secrets it names (spec: GitRepoConfig and
 * systems rules 2 and 3). HTTP(S): the `credentials` secret holds `username:password` (basic) or
 * a bare token (sent as the password of `x-access-token`, as GitHub wants; GitLab and Bitbucket
 * accept it too). SSH: the `ssh_credentials` secrets hold the private key and its passphrase
 * (possibly empty); host keys come from the service's configuration (`service.git.ssh_known_hosts`)
 * and, when `service.git.ssh_trust_on_first_use` is on, from what this system's sync recorded.
 */
import type { ServiceRepositories } from '../../store/service/index.js'
import { type GitCredentials, parseRemoteUrl } from '../git/index.js'
import type { SecretVault } from '../secrets/vault.js'
import { SourceFailure } from './failure.js'
import type { GitOrigin } from './origin.js'

export interface HostKeySettings {
  /** known_hosts lines (or bare public keys pinned to the origin's host) from the configuration. */
  knownHosts: string
  trustOnFirstUse: boolean
  /** Lines recorded by an earlier first use. */
  recorded?: string
  /** Persists lines learnt on first use. */
  record: (lines: string) => Promise<void>
}

async function readSecret(
  store: ServiceRepositories,
  vault: SecretVault,
  id: string,
  field: string,
): Promise<string> {
  const value = await vault.read(store, id)
  if (value === undefined)
    throw new SourceFailure(
      'missing_secret',
      `source_control.origin.${field}: secret "${id}" does not exist (create it with PUT /v1/secrets/${id})`,
    )
  return value
}

/** Builds the credentials of `origin`; undefined for transports and origins that need none. */
export async function credentialsFor(
  origin: GitOrigin,
  store: ServiceRepositories,
  vault: SecretVault,
  hostKeys: HostKeySettings,
): Promise<GitCredentials | undefined> {
  const remote = parseRemoteUrl(origin.url)
  if (remote.transport === 'ssh') {
    if (origin.sshKey === '')
      throw new SourceFailure(
        'missing_secret',
        'source_control.origin.ssh_credentials.private_key: an ssh URL needs the secret id of its private key',
      )
    const privateKey = await readSecret(store, vault, origin.sshKey, 'ssh_credentials.private_key')
    const passphrase =
      origin.sshPassphrase === ''
        ? ''
        : await readSecret(store, vault, origin.sshPassphrase, 'ssh_credentials.passphrase')
    const knownHosts = [hostKeys.knownHosts, hostKeys.recorded ?? '']
      .filter((s) => s.trim() !== '')
      .join('\n')
    return {
      ssh: {
        privateKey,
        ...(passphrase !== '' ? { passphrase } : {}),
        hostKeys: {
          ...(knownHosts !== '' ? { knownHosts } : {}),
          ...(hostKeys.trustOnFirstUse ? { trustOnFirstUse: hostKeys.record } : {}),
        },
      },
    }
  }
  if (origin.credentials === '' || remote.transport !== 'http') return undefined
  const value = await readSecret(store, vault, origin.credentials, 'credentials')
  const colon = value.indexOf(':')
  return colon > 0
    ? { http: { kind: 'basic', username: value.slice(0, colon), password: value.slice(colon + 1) } }
    : { http: { kind: 'token', token: value } }
}
