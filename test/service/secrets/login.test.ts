/**
 * readLogin: a secret's name is the user part and its value the password, read from a real store
 * (SQLite, and PostgreSQL when configured) through the real vault.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { openSecretKeySource } from '../../../service/secrets/key-source.js'
import { emptyUserProblem, readLogin } from '../../../service/secrets/login.js'
import { SecretVault } from '../../../service/secrets/vault.js'
import { createdBy } from '../../../store/service/index.js'
import { BACKENDS, openTestStore } from '../../store/backends.js'

const actor = { by: 'test', through: 'test' }

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`login secrets on ${backend.name}`, () => {
    let db: Awaited<ReturnType<typeof openTestStore>>
    let dir: string
    let vault: SecretVault
    const put = (id: string, name: string, value: string) =>
      db.store.secrets.insert({ id, name, description: '', ...vault.seal(id, value), ...createdBy(actor) })

    beforeAll(async () => {
      db = await openTestStore(backend)
      dir = mkdtempSync(join(tmpdir(), 'regent-login-'))
      vault = new SecretVault(openSecretKeySource({ dataDir: dir, env: {} }))
    })
    afterAll(async () => {
      await db?.close()
      rmSync(dir, { recursive: true, force: true })
    })

    it('reads the name as the user part and the value, untouched, as the password', async () => {
      await put('ldap/reader', ' cn=reader,dc=example,dc=org ', 'p:a {"dn": "x"}')
      expect(await readLogin(db.store, vault, 'ldap/reader')).toEqual({
        user: 'cn=reader,dc=example,dc=org',
        secret: 'p:a {"dn": "x"}',
      })
    })

    it('gives an empty user for a token secret, and nothing for a missing secret', async () => {
      await put('git/token', '', 'tok-123')
      expect(await readLogin(db.store, vault, 'git/token')).toEqual({ user: '', secret: 'tok-123' })
      expect(await readLogin(db.store, vault, 'no/such')).toBeUndefined()
    })

    it('names the secret and both parts when the user part is missing', () => {
      expect(emptyUserProblem('s3/keys', 'access key id', 'secret access key')).toBe(
        `secret "s3/keys" has an empty name (a login secret's name is the access key id and its value the secret access key)`,
      )
    })
  })
}
