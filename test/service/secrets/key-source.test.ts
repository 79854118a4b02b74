import { chmodSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { GENERATED_KEY_FILE, openSecretKeySource } from '../../../service/secrets/key-source.js'
import { formatKeyring, generateSecretKey, Keyring } from '../../../service/secrets/keyring.js'

describe.skipIf(process.platform === 'win32')('secrets key source', () => {
  let dir: string
  beforeEach(() => {
    dir = mkdtempSync(join(tmpdir(), 'regent-keys-'))
  })
  afterEach(() => rmSync(dir, { recursive: true, force: true }))

  it('generates a private key file in the data folder once, and reads it on the next start', () => {
    const dataDir = join(dir, 'data')
    const first = openSecretKeySource({ dataDir, env: {} })
    const file = join(dataDir, GENERATED_KEY_FILE)
    expect(first.file).toBe(file)
    expect(statSync(file).mode & 0o777).toBe(0o600)
    expect(statSync(dataDir).mode & 0o777).toBe(0o700)
    const second = openSecretKeySource({ dataDir, env: {} })
    expect(second.current().active.id).toBe(first.current().active.id)
  })

  it('prefers key_file, then REGENT_SECRETS_KEY', () => {
    const fileKey = generateSecretKey()
    const envKey = generateSecretKey()
    const keyFile = join(dir, 'keys')
    writeFileSync(keyFile, formatKeyring(new Keyring([fileKey])), { mode: 0o600 })
    const env = { REGENT_SECRETS_KEY: envKey.key.toString('base64') }
    expect(openSecretKeySource({ keyFile, env, dataDir: dir }).current().active.id).toBe(fileKey.id)
    const fromEnv = openSecretKeySource({ env, dataDir: dir })
    expect(fromEnv.current().active.id).toBe(envKey.id)
    expect(fromEnv.description).toBe('REGENT_SECRETS_KEY')
    expect(() => fromEnv.replace(new Keyring([fileKey]))).toThrow(/cannot change/)
  })

  it('refuses a key file others may read, naming it and the fix', () => {
    const keyFile = join(dir, 'keys')
    writeFileSync(keyFile, formatKeyring(new Keyring([generateSecretKey()])))
    chmodSync(keyFile, 0o644)
    expect(() => openSecretKeySource({ keyFile, dataDir: dir })).toThrow(
      new RegExp(
        `key_file ${keyFile} is accessible to other users \\(mode 0644\\); restrict it with chmod 600`,
      ),
    )
    chmodSync(keyFile, 0o400)
    expect(openSecretKeySource({ keyFile, dataDir: dir }).current().keys).toHaveLength(1)
  })

  it('refuses a missing or malformed key file', () => {
    expect(() => openSecretKeySource({ keyFile: join(dir, 'none'), dataDir: dir })).toThrow(
      /cannot be read: ENOENT/,
    )
    const bad = join(dir, 'bad')
    writeFileSync(bad, 'c2hvcnQ=\n', { mode: 0o600 })
    expect(() => openSecretKeySource({ keyFile: bad, dataDir: dir })).toThrow(
      /key 1 is not a base64-encoded 32-byte key/,
    )
  })

  it('re-reads a key file that changed, and replaces it atomically with mode 0600', () => {
    const keyFile = join(dir, 'keys')
    const a = generateSecretKey()
    writeFileSync(keyFile, formatKeyring(new Keyring([a])), { mode: 0o600 })
    const source = openSecretKeySource({ keyFile, dataDir: dir })
    const b = generateSecretKey()
    source.replace(new Keyring([b, a]))
    expect(statSync(keyFile).mode & 0o777).toBe(0o600)
    expect(readFileSync(keyFile, 'utf8')).toContain(`# ${b.id} (active)`)
    // Another process (the rotation command) rewrites the file: this source follows.
    const reader = openSecretKeySource({ keyFile, dataDir: dir })
    const c = generateSecretKey()
    writeFileSync(keyFile, formatKeyring(new Keyring([c, b, a])), { mode: 0o600 })
    expect(reader.current().ids).toEqual([c.id, b.id, a.id])
  })
})
