/**
 * The keys secret values are sealed with. A keyring is an ordered list of 256-bit keys: the
 * first seals new values, the others only open values sealed before a rotation. A key's id is
 * derived from the key itself (a salted SHA-256 prefix), so the same key has the same id in a
 * file, in `REGENT_SECRETS_KEY` and on every replica, and nothing maps ids to keys but the keys.
 *
 * Text form (key files and the environment variable): base64 keys separated by newlines or
 * commas; blank lines and `#` comments are ignored.
 */
import { createHash, randomBytes } from 'node:crypto'

/** Bytes of an AES-256 key. */
export const SECRET_KEY_BYTES = 32

/** One key and the id ciphertexts name it by. */
export interface SecretKey {
  id: string
  key: Buffer
}

/** A problem with key material; the message names where it came from, never the key. */
export class SecretKeyError extends Error {
  constructor(message: string) {
    super(message)
    this.name = 'SecretKeyError'
  }
}

/** The id of `key`: `k` and 16 hex digits of SHA-256 over a fixed label and the key. */
export function keyIdOf(key: Buffer): string {
  return `k${createHash('sha256').update('regent secrets key id\0').update(key).digest('hex').slice(0, 16)}`
}

/** A new random key. */
export function generateSecretKey(): SecretKey {
  const key = randomBytes(SECRET_KEY_BYTES)
  return { id: keyIdOf(key), key }
}

/** Keys in order: `active` seals, every key (active included) opens. */
export class Keyring {
  private readonly byId: ReadonlyMap<string, SecretKey>

  /** @throws SecretKeyError for an empty list. */
  constructor(readonly keys: readonly SecretKey[]) {
    if (keys.length === 0) throw new SecretKeyError('a keyring needs at least one key')
    const byId = new Map<string, SecretKey>()
    for (const key of keys) if (!byId.has(key.id)) byId.set(key.id, key)
    this.byId = byId
  }

  /** The key new values are sealed with. */
  get active(): SecretKey {
    return this.keys[0]!
  }

  /** The key with `id`, if this keyring holds it. */
  get(id: string): SecretKey | undefined {
    return this.byId.get(id)
  }

  /** Ids of every key, active first. */
  get ids(): string[] {
    return [...this.byId.keys()]
  }

  /** A keyring with `key` first and these keys after it (a rotation's first step). */
  withActive(key: SecretKey): Keyring {
    return new Keyring([key, ...this.keys.filter((k) => k.id !== key.id)])
  }

  /** A keyring of the active key alone (a rotation's last step). */
  activeOnly(): Keyring {
    return new Keyring([this.active])
  }
}

const BASE64 = /^[A-Za-z0-9+/_-]+={0,2}$/

/**
 * Parses the text form.
 * @param where names the source in errors (`REGENT_SECRETS_KEY`, a file path).
 * @throws SecretKeyError naming the entry (by position, never by content) that is not a
 *   base64 256-bit key.
 */
export function parseKeyring(text: string, where: string): Keyring {
  const entries = text
    .split(/[\n,]/)
    .map((line) => line.replace(/#.*$/, '').trim())
    .filter((line) => line !== '')
  if (entries.length === 0) throw new SecretKeyError(`${where} holds no key`)
  const keys = entries.map((entry, i) => {
    const key = BASE64.test(entry)
      ? Buffer.from(entry.replace(/-/g, '+').replace(/_/g, '/'), 'base64')
      : undefined
    if (key === undefined || key.length !== SECRET_KEY_BYTES) {
      throw new SecretKeyError(
        `${where}: key ${i + 1} is not a base64-encoded ${SECRET_KEY_BYTES}-byte key (generate one with: openssl rand -base64 32)`,
      )
    }
    return { id: keyIdOf(key), key }
  })
  return new Keyring(keys)
}

/** The text form of a keyring (a key file's content), with each key's id as a comment. */
export function formatKeyring(keyring: Keyring): string {
  const lines = keyring.keys.map(
    (k, i) => `${k.key.toString('base64')}  # ${k.id}${i === 0 ? ' (active)' : ''}`,
  )
  return `${lines.join('\n')}\n`
}
