/**
 * How a secret holds a login, one rule for every part that reads one (git origins, git
 * datasources, LDAP binds, object stores, the S3 bundle registry), the rule DAS follows: the
 * secret's `name` is the user part (username, bind DN, access key id) and its value the password
 * or secret key. An empty name means the value alone is a token, where the transport has tokens;
 * where it has none the caller refuses it, naming the secret (see docs/secrets.md).
 */
import type { ServiceRepositories } from '../../store/service/index.js'
import type { SecretVault } from './vault.js'

/** A login read from a secret: `user` is its name (trimmed; '' when unset), `secret` its value. */
export interface SecretLogin {
  user: string
  secret: string
}

/**
 * The login the secret `id` holds; undefined when the secret does not exist.
 * @throws what the vault throws when the value cannot be opened with the service's keys.
 */
export async function readLogin(
  store: ServiceRepositories,
  vault: SecretVault,
  id: string,
): Promise<SecretLogin | undefined> {
  const [row, secret] = await Promise.all([store.secrets.getMetadata(id), vault.read(store, id)])
  if (!row || secret === undefined) return undefined
  return { user: row.name.trim(), secret }
}

/**
 * Why `id` cannot serve a transport without tokens: its name, the user part, is empty.
 * @example emptyUserProblem('s3/keys', 'access key id', 'secret access key')
 */
export function emptyUserProblem(id: string, userPart: string, secretPart: string): string {
  return `secret "${id}" has an empty name (a login secret's name is the ${userPart} and its value the ${secretPart})`
}
