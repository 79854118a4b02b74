import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openSecretKeySource } from '../../../service/secrets/key-source.js'
import { formatKeyring, generateSecretKey, Keyring } from '../../../service/secrets/keyring.js'
import { rotateSecretsKey } from '../../../service/secrets/rotation.js'
import { SecretVault } from '../../../service/secrets/vault.js'
import { createdBy, type ServiceStore } from '../../../store/service/index.js'
import { BACKENDS, openTestStore } from '../../store/backends.js'

const actor = { by: 'test', through: 'test' }

async function putSecret(store: ServiceStore, vault: SecretVault, id: string, value: string) {
  await store.secrets.insert({ id, name: id, description: '', ...vault.seal(id, value), ...createdBy(actor) })
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`secrets key rotation on ${backend.name}`, () => {
    let db: Awaited<ReturnType<typeof openTestStore>>
    let dir: string
    beforeAll(async () => {
      db = await openTestStore(backend)
      dir = mkdtempSync(join(tmpdir(), 'regent-rotate-'))
    })
    afterAll(async () => {
      await db?.close()
      rmSync(dir, { recursive: true, force: true })
    })

    it('moves every value to a new key without losing one, then drops the old key from the file', async () => {
      const { store } = db
      const keys = openSecretKeySource({ dataDir: dir, env: {} })
      const vault = new SecretVault(keys)
      const oldKeyId = keys.current().active.id
      const values = new Map<string, string>()
      for (let i = 0; i < 150; i++)
        values.set(`app/${String(i).padStart(3, '0')}`, `value-${i}-${'x'.repeat(i % 7)}`)
      values.set('git/ssh/passphrase', '')
      for (const [id, value] of values) await putSecret(store, vault, id, value)
      expect(await store.secrets.keyIds()).toEqual([oldKeyId])

      const report = await rotateSecretsKey({ store, keys, graceMs: 10 })
      expect(report.generated).toBe(true)
      expect(report.activeKeyId).not.toBe(oldKeyId)
      expect(report.resealed).toBe(values.size)
      expect(report.unreadable).toEqual([])
      expect(report.droppedKeyIds).toEqual([oldKeyId])
      expect(await store.secrets.keyIds()).toEqual([report.activeKeyId])
      const file = readFileSync(keys.file!, 'utf8')
      expect(file).toContain(report.activeKeyId)
      expect(file).not.toContain(oldKeyId)
      // A fresh reader of the file (a restarted service) opens every value.
      const restarted = new SecretVault(openSecretKeySource({ dataDir: dir, env: {} }))
      await restarted.assertKeysKnown(store)
      for (const [id, value] of values) expect(await restarted.read(store, id)).toBe(value)
    })

    it('keeps the old keys and names the value it cannot open', async () => {
      const { store } = db
      const keys = openSecretKeySource({ dataDir: dir, env: {} })
      const vault = new SecretVault(keys)
      await putSecret(store, vault, 'zz/broken', 'v')
      const row = (await store.secrets.getSealed('zz/broken'))!
      // Tamper with the stored value behind the service's back.
      const broken = `${row.ciphertext.slice(0, -6)}AAAAAA`
      await store.secrets.reseal('zz/broken', row.ciphertext, { key_id: row.key_id, ciphertext: broken })
      const before = keys.current().active.id
      const report = await rotateSecretsKey({ store, keys, graceMs: 10 })
      expect(report.unreadable).toEqual([
        { id: 'zz/broken', reason: expect.stringMatching(/authentication failed/) },
      ])
      expect(report.droppedKeyIds).toEqual([])
      expect(keys.current().ids).toEqual([report.activeKeyId, before])
      // The other values moved and still open; the broken one keeps its (old) key.
      expect(await vault.read(store, 'app/001')).toBe('value-1-x')
      expect((await store.secrets.getSealed('zz/broken'))!.key_id).toBe(before)
      // Once it is fixed (here: deleted), running the command again finishes the same rotation.
      await store.secrets.delete('zz/broken')
      const again = await rotateSecretsKey({ store, keys, graceMs: 10 })
      expect(again.generated).toBe(false)
      expect(again.activeKeyId).toBe(report.activeKeyId)
      expect(again.droppedKeyIds).toEqual([before])
      expect(keys.current().ids).toEqual([report.activeKeyId])
    })

    it('with REGENT_SECRETS_KEY, re-seals under the first key and says which keys may go', async () => {
      const { store } = db
      const file = openSecretKeySource({ dataDir: dir, env: {} }).current()
      const fresh = generateSecretKey()
      const oldText = file.keys.map((k) => k.key.toString('base64')).join(',')
      const keys = openSecretKeySource({
        dataDir: dir,
        env: { REGENT_SECRETS_KEY: `${fresh.key.toString('base64')},${oldText}` },
      })
      const report = await rotateSecretsKey({ store, keys, graceMs: 10 })
      expect(report.generated).toBe(false)
      expect(report.activeKeyId).toBe(fresh.id)
      expect(report.removableKeyIds).toEqual(file.ids)
      expect(await store.secrets.keyIds()).toEqual([fresh.id])
      // The service refuses to start with keys that cannot open what is stored.
      const keyFile = join(dir, 'other.key')
      writeFileSync(keyFile, formatKeyring(new Keyring([generateSecretKey()])), { mode: 0o600 })
      await expect(
        new SecretVault(openSecretKeySource({ keyFile, dataDir: dir })).assertKeysKnown(store),
      ).rejects.toThrow(
        new RegExp(`sealed with key\\(s\\) ${fresh.id}, which key file ${keyFile} does not hold`),
      )
    })
  })
}
