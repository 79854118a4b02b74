/**
 * `regent service rotate-secrets-key` as a user runs it: beside the service's data folder, it
 * re-seals every value with a new key and leaves a key file that opens them all.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, describe, expect, it } from 'vitest'
import { openSecretKeySource } from '../../service/secrets/key-source.js'
import { SecretVault } from '../../service/secrets/vault.js'
import { createdBy, ServiceStore } from '../../store/service/index.js'
import { runRegent } from '../support/run-cli.js'

const dir = mkdtempSync(join(tmpdir(), 'regent-rotate-cli-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('regent service rotate-secrets-key', () => {
  it('re-seals the values of the data folder with a new key and drops the old one', async () => {
    const url = join(dir, 'service.db')
    let store = await ServiceStore.open({ url })
    const vault = new SecretVault(openSecretKeySource({ dataDir: dir, env: {} }))
    const oldKey = vault.keys.current().active.id
    for (const [id, value] of [
      ['git/ssh/key', 'key-material'],
      ['git/ssh/passphrase', ''],
    ] as const) {
      await store.secrets.insert({
        id,
        name: id,
        description: '',
        ...vault.seal(id, value),
        ...createdBy({ by: 't', through: 't' }),
      })
    }
    await store.close()

    const env = { REGENT_SECRETS_KEY: '' }
    const run = await runRegent(['service', 'rotate-secrets-key', '--data-dir', dir], {
      env,
      timeoutMs: 40_000,
    })
    expect(run.stderr).toBe('')
    expect(run.code).toBe(0)
    expect(run.stdout).toMatch(/re-sealed: 2 secret value\(s\)/)
    expect(run.stdout).toContain(`dropped old key(s): ${oldKey}`)
    const newKey = /active key: (k[0-9a-f]{16}) \(generated now\)/.exec(run.stdout)?.[1]
    expect(newKey).toBeDefined()
    expect(readFileSync(join(dir, 'secrets.key'), 'utf8')).not.toContain(oldKey)

    store = await ServiceStore.open({ url })
    try {
      const reader = new SecretVault(openSecretKeySource({ dataDir: dir, env: {} }))
      expect(await reader.read(store, 'git/ssh/key')).toBe('key-material')
      expect(await reader.read(store, 'git/ssh/passphrase')).toBe('')
      expect(await store.secrets.keyIds()).toEqual([newKey])
    } finally {
      await store.close()
    }
  }, 60_000)
})
