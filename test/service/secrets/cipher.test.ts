import { randomBytes } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { openSecret, SecretUnreadableError, sealSecret } from '../../../service/secrets/cipher.js'
import {
  formatKeyring,
  generateSecretKey,
  Keyring,
  keyIdOf,
  parseKeyring,
  SecretKeyError,
} from '../../../service/secrets/keyring.js'

const VALUE =
  '-----BEGIN OPENSSH PRIVATE KEY-----\nb3BlbnNzaC1rZXktdjEAAAAA\n-----END OPENSSH PRIVATE KEY-----\n'

function flipCharAt(text: string, at: number): string {
  const c = text[at]!
  return text.slice(0, at) + (c === 'A' ? 'B' : 'A') + text.slice(at + 1)
}

describe('keyring', () => {
  it('derives the same id from the same key, another from another', () => {
    const key = randomBytes(32)
    expect(keyIdOf(key)).toBe(keyIdOf(Buffer.from(key)))
    expect(keyIdOf(key)).toMatch(/^k[0-9a-f]{16}$/)
    expect(keyIdOf(randomBytes(32))).not.toBe(keyIdOf(key))
  })

  it('reads its text form back: first key active, comments and commas allowed', () => {
    const a = generateSecretKey()
    const b = generateSecretKey()
    const ring = parseKeyring(formatKeyring(new Keyring([a, b])), 'test')
    expect(ring.ids).toEqual([a.id, b.id])
    expect(ring.active.id).toBe(a.id)
    const env = parseKeyring(`${b.key.toString('base64')},${a.key.toString('base64')}`, 'env')
    expect(env.active.id).toBe(b.id)
    expect(env.get(a.id)?.key.equals(a.key)).toBe(true)
  })

  it('refuses entries that are not base64 256-bit keys, naming the position but not the content', () => {
    const short = randomBytes(16).toString('base64')
    expect(() =>
      parseKeyring(`${generateSecretKey().key.toString('base64')}\n${short}`, 'REGENT_SECRETS_KEY'),
    ).toThrow(/REGENT_SECRETS_KEY: key 2 is not a base64-encoded 32-byte key/)
    try {
      parseKeyring('not a key!', 'f')
    } catch (err) {
      expect(err).toBeInstanceOf(SecretKeyError)
      expect((err as Error).message).not.toContain('not a key!')
    }
    expect(() => parseKeyring('# only a comment\n', 'f')).toThrow(/holds no key/)
  })
})

describe('sealing and opening a value', () => {
  const ring = new Keyring([generateSecretKey()])

  it('round-trips any value, the empty one included, without the value in the sealed form', () => {
    for (const value of [VALUE, '', 'pässwörd ✓', 'x'.repeat(100_000)]) {
      const sealed = sealSecret(ring, 'git/ssh/key', value)
      expect(sealed.key_id).toBe(ring.active.id)
      expect(sealed.ciphertext.startsWith(`v1:${ring.active.id}:`)).toBe(true)
      if (value !== '') expect(sealed.ciphertext).not.toContain(value.slice(0, 20))
      expect(openSecret(ring, 'git/ssh/key', sealed)).toBe(value)
    }
  })

  it('uses a fresh IV each time', () => {
    expect(sealSecret(ring, 'a', VALUE).ciphertext).not.toBe(sealSecret(ring, 'a', VALUE).ciphertext)
  })

  it('refuses a changed ciphertext, key id or secret id with a clear error, never garbage', () => {
    const sealed = sealSecret(ring, 'git/ssh/key', VALUE)
    const prefix = `v1:${ring.active.id}:`
    const cases: Array<[string, () => string, RegExp]> = [
      [
        'a flipped ciphertext byte',
        () =>
          openSecret(ring, 'git/ssh/key', {
            ...sealed,
            ciphertext: flipCharAt(sealed.ciphertext, sealed.ciphertext.length - 5),
          }),
        /authentication failed/,
      ],
      [
        'a flipped tag byte',
        () =>
          openSecret(ring, 'git/ssh/key', {
            ...sealed,
            ciphertext: flipCharAt(sealed.ciphertext, prefix.length + 20),
          }),
        /authentication failed/,
      ],
      ['another secret id', () => openSecret(ring, 'git/ssh/passphrase', sealed), /authentication failed/],
      [
        'a row key id that differs',
        () => openSecret(ring, 'git/ssh/key', { ...sealed, key_id: 'k0000000000000000' }),
        /the row names key/,
      ],
      [
        'a key id edited in both places',
        () => {
          const other = generateSecretKey()
          const both = new Keyring([ring.active, other])
          return openSecret(both, 'git/ssh/key', {
            key_id: other.id,
            ciphertext: sealed.ciphertext.replace(ring.active.id, other.id),
          })
        },
        /authentication failed with key/,
      ],
      [
        'an unknown key',
        () => openSecret(new Keyring([generateSecretKey()]), 'git/ssh/key', sealed),
        /not among the configured keys/,
      ],
      [
        'a truncated value',
        () => openSecret(ring, 'git/ssh/key', { ...sealed, ciphertext: `${prefix}AAAA` }),
        /truncated/,
      ],
      [
        'another format',
        () => openSecret(ring, 'git/ssh/key', { ...sealed, ciphertext: 'plain text' }),
        /not a v1 envelope/,
      ],
    ]
    for (const [what, open, message] of cases) {
      let caught: unknown
      try {
        open()
      } catch (err) {
        caught = err
      }
      expect(caught, what).toBeInstanceOf(SecretUnreadableError)
      expect((caught as Error).message, what).toMatch(message)
      expect((caught as Error).message, what).toMatch(
        /^secret git\/ssh\/(key|passphrase) cannot be decrypted: /,
      )
      expect((caught as Error).message, what).not.toContain('OPENSSH')
    }
  })
})
