/**
 * Sealing and opening one secret value with AES-256-GCM (node:crypto). The sealed form is one
 * string, `v1:<key id>:<base64 of iv ‖ tag ‖ ciphertext>`, with a fresh 96-bit IV per seal. The
 * secret's id and the key id are authenticated data: a ciphertext moved to another secret, or
 * whose key id was edited, fails to open with an error instead of yielding garbage.
 * Errors name the secret and the reason, never the value or the key.
 */
import { createCipheriv, createDecipheriv, randomBytes } from 'node:crypto'
import type { Keyring } from './keyring.js'

const VERSION = 'v1'
const IV_BYTES = 12
const TAG_BYTES = 16

/** A sealed value and the key id it names (stored side by side). */
export interface SealedSecret {
  key_id: string
  ciphertext: string
}

/** A stored value that cannot be opened; the message says why (never the value). */
export class SecretUnreadableError extends Error {
  constructor(
    readonly secretId: string,
    readonly reason: string,
  ) {
    super(`secret ${secretId} cannot be decrypted: ${reason}`)
    this.name = 'SecretUnreadableError'
  }
}

function additionalData(secretId: string, keyId: string): Buffer {
  return Buffer.from(`regent secret ${VERSION}\0${secretId}\0${keyId}`, 'utf8')
}

/** Seals `value` for the secret `secretId` with the keyring's active key. */
export function sealSecret(keyring: Keyring, secretId: string, value: string): SealedSecret {
  const { id, key } = keyring.active
  const iv = randomBytes(IV_BYTES)
  const cipher = createCipheriv('aes-256-gcm', key, iv, { authTagLength: TAG_BYTES })
  cipher.setAAD(additionalData(secretId, id))
  const body = Buffer.concat([cipher.update(value, 'utf8'), cipher.final()])
  const sealed = Buffer.concat([iv, cipher.getAuthTag(), body]).toString('base64')
  return { key_id: id, ciphertext: `${VERSION}:${id}:${sealed}` }
}

/**
 * Opens a sealed value of the secret `secretId`.
 * @throws SecretUnreadableError when the envelope is malformed, names an unknown key, disagrees
 *   with the stored key id, or fails authentication (changed ciphertext, key id or secret id).
 */
export function openSecret(keyring: Keyring, secretId: string, sealed: SealedSecret): string {
  const parts = sealed.ciphertext.split(':')
  if (parts.length !== 3 || parts[0] !== VERSION) {
    throw new SecretUnreadableError(secretId, `the stored value is not a ${VERSION} envelope`)
  }
  const [, keyId, body] = parts as [string, string, string]
  if (keyId !== sealed.key_id) {
    throw new SecretUnreadableError(
      secretId,
      `the envelope names key ${keyId} but the row names key ${sealed.key_id} (the stored value was changed)`,
    )
  }
  const entry = keyring.get(keyId)
  if (!entry) {
    throw new SecretUnreadableError(
      secretId,
      `it is sealed with key ${keyId}, which is not among the configured keys (${keyring.ids.join(', ')})`,
    )
  }
  const bytes = Buffer.from(body, 'base64')
  if (bytes.length < IV_BYTES + TAG_BYTES) {
    throw new SecretUnreadableError(secretId, 'the stored value is truncated')
  }
  const decipher = createDecipheriv('aes-256-gcm', entry.key, bytes.subarray(0, IV_BYTES), {
    authTagLength: TAG_BYTES,
  })
  decipher.setAAD(additionalData(secretId, keyId))
  decipher.setAuthTag(bytes.subarray(IV_BYTES, IV_BYTES + TAG_BYTES))
  try {
    const plain = Buffer.concat([decipher.update(bytes.subarray(IV_BYTES + TAG_BYTES)), decipher.final()])
    return plain.toString('utf8')
  } catch {
    throw new SecretUnreadableError(
      secretId,
      `authentication failed with key ${keyId} (the stored value, its key id or its secret id was changed)`,
    )
  }
}
