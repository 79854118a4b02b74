/**
 * The git credentials an origin names, opened from the secret store: `credentials` is an HTTP
 * login (the secret's `name` is the username and its value the password or token; an empty name
 * sends the value as a token), `ssh_credentials` name the private key and its passphrase (an empty
 * passphrase value: a key without one). Host keys of ssh remotes: host-keys.ts.
 *
 * Every secret id is checked before any is opened, so a missing one is a 400 naming its field
 * and no git command runs. The endpoints answer that error as is; the git source records it as
 * the system's `missing_secret` status.
 */
import { HttpError } from '../../core/http/index.js'
import type { ServiceRepositories } from '../../store/service/index.js'
import { type GitCredentials, parseRemoteUrl } from '../git/index.js'
import { readLogin } from '../secrets/login.js'
import type { SecretVault } from '../secrets/vault.js'
import { hostKeyVerification } from './host-keys.js'
import type { GitOriginFields } from './origin.js'

/** A secret the origin needs is missing or not named: 400 for the endpoints, a status for the git source. */
export class MissingSecretError extends HttpError {
  constructor(message: string, problems: string[] = [message]) {
    super(400, 'invalid_parameter', message, problems)
    this.name = 'MissingSecretError'
  }
}

interface NamedSecret {
  field: string
  id: string
}

function namedSecrets(fields: GitOriginFields, prefix: string): NamedSecret[] {
  const found: NamedSecret[] = []
  const add = (field: string, id: string | undefined) => {
    if (id) found.push({ field: `${prefix}${field}`, id })
  }
  add('credentials', fields.credentials)
  add('ssh_credentials.private_key', fields.ssh_credentials?.private_key)
  add('ssh_credentials.passphrase', fields.ssh_credentials?.passphrase)
  return found
}

/** @throws HttpError 400 naming every field whose secret does not exist. */
async function assertNamedSecretsExist(store: ServiceRepositories, named: NamedSecret[]): Promise<void> {
  const missing = new Set(await store.secrets.missing(named.map((n) => n.id)))
  const problems = named
    .filter((n) => missing.has(n.id))
    .map((n) => `${n.field}: secret "${n.id}" does not exist (create it with PUT /v1/secrets/${n.id})`)
  if (problems.length > 0) throw new MissingSecretError(problems[0]!, problems)
}

/**
 * The credentials for `fields.url`, opened from the secrets it names; undefined when it names none.
 * @throws MissingSecretError (HttpError 400) when a named secret is missing or ssh credentials are incomplete.
 */
export async function originCredentials(
  store: ServiceRepositories,
  vault: SecretVault,
  fields: GitOriginFields,
  prefix: string,
  knownHosts: readonly string[],
): Promise<GitCredentials | undefined> {
  const named = namedSecrets(fields, prefix)
  await assertNamedSecretsExist(store, named)
  const open = async (id: string) => (await vault.read(store, id)) ?? ''
  const remote = parseRemoteUrl(fields.url)
  if (remote.transport === 'ssh') {
    const keyId = fields.ssh_credentials?.private_key
    if (!keyId)
      throw new MissingSecretError(
        `${prefix}ssh_credentials.private_key: required for a git repository over SSH`,
      )
    const passphraseId = fields.ssh_credentials?.passphrase
    const passphrase = passphraseId ? await open(passphraseId) : ''
    return {
      ssh: {
        privateKey: await open(keyId),
        ...(passphrase === '' ? {} : { passphrase }),
        hostKeys: await hostKeyVerification(store, knownHosts, remote.host!, remote.port!),
      },
    }
  }
  if (remote.transport !== 'http' || !fields.credentials) return undefined
  const login = await readLogin(store, vault, fields.credentials)
  const { user, secret } = login ?? { user: '', secret: '' }
  return {
    http:
      user === '' ? { kind: 'token', token: secret } : { kind: 'basic', username: user, password: secret },
  }
}
