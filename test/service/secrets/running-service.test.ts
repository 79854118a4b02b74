/**
 * The keys as a running service sees them: a rotation made beside it (as the CLI does) is
 * followed without a restart, and a key file others may read stops the start.
 */
import { chmodSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createLogger } from '../../../core/log.js'
import { serviceSectionSchema, startService } from '../../../service/index.js'
import { openSecretKeySource } from '../../../service/secrets/key-source.js'
import { formatKeyring, generateSecretKey, Keyring } from '../../../service/secrets/keyring.js'
import { rotateSecretsKey } from '../../../service/secrets/rotation.js'
import { SecretVault } from '../../../service/secrets/vault.js'
import { BACKENDS } from '../../store/backends.js'
import { startTestService, type TestService } from '../harness.js'

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`secrets of a running service on ${backend.name}`, () => {
    let t: TestService
    beforeAll(async () => {
      t = await startTestService(backend)
    })
    afterAll(async () => t?.close())

    it('keeps every value through a rotation made beside it, and seals new ones with the new key', async () => {
      for (const [id, secret] of [
        ['git/ssh/key', 'key-before'],
        ['git/ssh/passphrase', ''],
      ]) {
        expect((await t.json('PUT', `/v1/secrets/${id}`, { body: { name: id, secret } })).status).toBe(200)
      }
      const keys = openSecretKeySource({ dataDir: t.dataDir, env: {} })
      const oldKey = keys.current().active.id
      const report = await rotateSecretsKey({ store: t.service.store, keys, graceMs: 10 })
      expect(report).toMatchObject({ generated: true, resealed: 2, droppedKeyIds: [oldKey] })
      // Written after the rotation through the running service: sealed with the new key.
      expect((await t.json('PUT', '/v1/secrets/after', { body: { secret: 'value-after' } })).status).toBe(200)
      const { store } = t.service
      expect(await store.secrets.keyIds()).toEqual([report.activeKeyId])
      const reader = new SecretVault(openSecretKeySource({ dataDir: t.dataDir, env: {} }))
      expect(await reader.read(store, 'git/ssh/key')).toBe('key-before')
      expect(await reader.read(store, 'git/ssh/passphrase')).toBe('')
      expect(await reader.read(store, 'after')).toBe('value-after')
      expect(t.logs.join('\n')).not.toMatch(/key-before|value-after/)
    })
  })
}

describe.skipIf(process.platform === 'win32')('service start with a secrets key file', () => {
  const dir = mkdtempSync(join(tmpdir(), 'regent-keyfile-start-'))
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('refuses a key file others may read, naming it', async () => {
    const keyFile = join(dir, 'secrets.key')
    writeFileSync(keyFile, formatKeyring(new Keyring([generateSecretKey()])))
    chmodSync(keyFile, 0o644)
    const config = serviceSectionSchema.parse({ secrets: { key_file: keyFile } })
    await expect(
      startService({ config, logger: createLogger({ level: 'silent' }), addr: '127.0.0.1:0', dataDir: dir }),
    ).rejects.toThrow(`service.secrets.key_file ${keyFile} is accessible to other users (mode 0644)`)
  })
})
