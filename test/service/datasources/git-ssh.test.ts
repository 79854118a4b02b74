/**
 * git datasources over ssh follow the host-key rules of git-backed systems (service.git.known_hosts,
 * else trust on first use, recorded in the settings; a changed key refused), against Debian's
 * sshd on 127.0.0.1, the key and its passphrase in secrets. Skips with a message where sshd
 * cannot start.
 */
import { rmSync } from 'node:fs'
import { afterAll, describe, expect, it } from 'vitest'
import { knownHostsKey } from '../../../service/git-origin/host-keys.js'
import { BACKENDS } from '../../store/backends.js'
import { makeOrigin, type Sshd, startSshd, stop, tempDir } from '../git/fixtures.js'
import type { TestService } from '../harness.js'
import { serviceStarter } from '../service-starter.js'

const sqlite = BACKENDS.find((b) => b.name === 'sqlite')!
const root = tempDir()
makeOrigin(root, { 'data/teams/red.json': '{"members": ["alice"]}' })
const started = await startSshd(root)
const sshd: Sshd | undefined = typeof started === 'string' ? undefined : started
if (typeof started === 'string') console.warn(`skipping the git datasource ssh tests: ${started}`)

afterAll(() => {
  stop(sshd?.child)
  rmSync(root, { recursive: true, force: true })
})

interface Status {
  code: string
  message: string
}

describe.skipIf(sshd === undefined)('git datasources over ssh (sshd)', () => {
  const s = sshd!
  const startService = serviceStarter(sqlite)
  /** A service with the system `app` the datasources belong to. */
  const start = async (yaml: string) => {
    const t = await startService(yaml)
    const made = await t.json('PUT', '/v1/systems/app', {
      body: { name: 'app', type: 'custom' },
      headers: { 'If-None-Match': '*' },
    })
    expect(made.status).toBe(200)
    return t
  }

  /** Runs a git/content datasource `name` that reads the repository over ssh with this key. */
  async function runOverSsh(t: TestService, name: string, key: string, passphrase: string) {
    await t.json('PUT', `/v1/secrets/ssh/${name}/key`, { body: { secret: key } })
    await t.json('PUT', `/v1/secrets/ssh/${name}/passphrase`, { body: { secret: passphrase } })
    const put = await t.json<{ message?: string }>('PUT', `/v1/datasources/systems/app/${name}`, {
      body: {
        category: 'git/content',
        url: `ssh://${s.user}@127.0.0.1:${s.port}${root}/repo.git`,
        reference: 'refs/heads/main',
        path: 'data',
        ssh_credentials: { private_key: `ssh/${name}/key`, passphrase: `ssh/${name}/passphrase` },
      },
    })
    expect(put.status, put.body.message).toBe(200)
    const res = await t.json<{ result: Status }>('POST', `/v1/datasources/systems/app/${name}`)
    return res.body.result
  }

  it('trusts an unconfigured host on first use, records its key, and reads with a passphrase-protected key', async () => {
    const t = await start('datasources: {scheduler_interval: 1h}')
    const status = await runOverSsh(t, 'tofu', s.lockedKey, s.passphrase)
    expect(status, status.message).toMatchObject({ code: 'ok', items: 1 })
    expect(await t.service.store.settings.get(knownHostsKey('127.0.0.1', s.port))).toContain(
      s.hostPublicKey.split(' ')[1],
    )
    expect(t.logs.join('\n')).not.toContain(s.passphrase)
  })

  it('uses service.git.known_hosts, and refuses a host whose recorded key changed', async () => {
    const line = `[127.0.0.1]:${s.port} ${s.hostPublicKey}`
    const pinned = await start(
      `{datasources: {scheduler_interval: 1h}, git: {known_hosts: [${JSON.stringify(line)}]}}`,
    )
    const ok = await runOverSsh(pinned, 'pinned', s.plainKey, '')
    expect(ok, ok.message).toMatchObject({ code: 'ok', items: 1 })
    // A configured host is checked against the configuration only: nothing is recorded.
    expect(await pinned.service.store.settings.get(knownHostsKey('127.0.0.1', s.port))).toBeUndefined()

    const changed = await start('datasources: {scheduler_interval: 1h}')
    await changed.service.store.settings.getOrInit(
      knownHostsKey('127.0.0.1', s.port),
      `[127.0.0.1]:${s.port} ${s.otherHostPublicKey}\n`,
    )
    const refused = await runOverSsh(changed, 'changed', s.plainKey, '')
    expect(refused).toMatchObject({ code: 'error' })
    expect(refused.message).toMatch(/^git error: host_key_rejected/)
  })
})
