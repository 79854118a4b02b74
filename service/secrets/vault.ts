/**
 * The service's view of its secrets: seals values for the store and opens them for the code
 * that needs one (git, datasources). Nothing here returns a value to an API caller.
 */
import type { ServiceRepositories } from '../../store/service/index.js'
import { openSecret, type SealedSecret, sealSecret } from './cipher.js'
import type { SecretKeySource } from './key-source.js'
import { SecretKeyError } from './keyring.js'

/** Seals and opens secret values with the configured keys. */
export class SecretVault {
  constructor(readonly keys: SecretKeySource) {}

  /** Seals `value` for the secret `id` with the active key. */
  seal(id: string, value: string): SealedSecret {
    return sealSecret(this.keys.current(), id, value)
  }

  /**
   * The value of the secret `id`, or undefined when there is no such secret.
   * @throws SecretUnreadableError when the stored value cannot be opened.
   */
  async read(store: ServiceRepositories, id: string): Promise<string | undefined> {
    const row = await store.secrets.getSealed(id)
    return row === undefined ? undefined : openSecret(this.keys.current(), id, row)
  }

  /**
   * Refuses to run with keys that cannot open what is stored: a replica started with its own
   * generated key, or a key file replaced by a new one without a rotation, would otherwise seal
   * new values under a key the others lack and answer every read of an old one with an error.
   * @throws SecretKeyError naming the missing key ids and where the keys came from.
   */
  async assertKeysKnown(store: ServiceRepositories): Promise<void> {
    const keyring = this.keys.current()
    const unknown = (await store.secrets.keyIds()).filter((id) => keyring.get(id) === undefined)
    if (unknown.length === 0) return
    throw new SecretKeyError(
      `stored secrets are sealed with key(s) ${unknown.join(', ')}, which ${this.keys.description} does not hold ` +
        `(it holds ${keyring.ids.join(', ')}); configure the key these secrets were written with ` +
        '(service.secrets.key_file or REGENT_SECRETS_KEY; see docs/secrets.md)',
    )
  }
}
