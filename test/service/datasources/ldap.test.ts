/**
 * The `ldap` category against a real OpenLDAP `slapd` started here with entries written here:
 * bind with credentials from a secret, failover from a dead server to a replica, paged results,
 * scopes, ldaps and StartTLS with a CA generated here, a group membership change reaching the
 * bundle, and wrong credentials keeping the last good data. SQLite and (when configured)
 * PostgreSQL. Skipped with the reason when slapd is not installed.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readBundle } from '../../../core/bundle/index.js'
import { BACKENDS } from '../../store/backends.js'
import { ADMIN_DN, ADMIN_PASSWORD, type Slapd, slapdMissing, startSlapd } from '../../support/slapd.js'
import { createTestPki, type TestPki } from '../../support/test-pki.js'
import { freePort } from '../git/fixtures.js'
import { startTestService, type TestService } from '../harness.js'

const missing = slapdMissing()
if (missing) console.log(`skipping ldap datasource tests: ${missing}`)

const PEOPLE = ['alice', 'bob', 'carol', 'dave', 'eve']
const ENTRIES = [
  'dn: ou=people,dc=example,dc=org\nobjectClass: organizationalUnit\nou: people\n',
  ...PEOPLE.map(
    (uid) =>
      `dn: uid=${uid},ou=people,dc=example,dc=org\nobjectClass: inetOrgPerson\nuid: ${uid}\ncn: ${uid}\nsn: ${uid}\nmail: ${uid}@example.org\n`,
  ),
  'dn: ou=groups,dc=example,dc=org\nobjectClass: organizationalUnit\nou: groups\n',
  'dn: cn=admins,ou=groups,dc=example,dc=org\nobjectClass: groupOfNames\ncn: admins\nmember: uid=alice,ou=people,dc=example,dc=org\n',
].join('\n')

interface Status {
  code: string
  message: string
  items: number | null
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available || missing !== undefined)(`ldap datasources on ${backend.name}`, () => {
    let t: TestService
    let pki: TestPki
    let slapd: Slapd
    let deadUrl: string

    const put = (name: string, config: Record<string, unknown>) =>
      t.json<{ result: Record<string, unknown>; message?: string }>(
        'PUT',
        `/v1/datasources/systems/app/${name}`,
        {
          body: { category: 'ldap', credentials: 'ldap/admin', ...config },
        },
      )
    const run = async (name: string) => {
      const res = await t.json<{ result: Status; message?: string }>(
        'POST',
        `/v1/datasources/systems/app/${name}`,
      )
      expect(res.status, res.body.message).toBe(200)
      return res.body.result
    }
    const bundleData = async () => {
      const bytes = new Uint8Array(await (await t.call('GET', '/v1/bundles/systems/app')).arrayBuffer())
      return (await readBundle(bytes)).data as Record<string, unknown>
    }
    const people = {
      base_DN: 'ou=people,dc=example,dc=org',
      filter: '(objectClass=inetOrgPerson)',
      attributes: ['uid', 'mail'],
    }

    beforeAll(async () => {
      pki = createTestPki()
      slapd = await startSlapd(ENTRIES, pki)
      deadUrl = `ldap://127.0.0.1:${await freePort()}`
      t = await startTestService(backend, 'datasources: {scheduler_interval: 1h, timeout: 10s}')
      await t.json('PUT', '/v1/systems/app', {
        body: { name: 'app', type: 'custom' },
        headers: { 'If-None-Match': '*' },
      })
      // A login secret: its name is the bind DN, its value the password (docs/secrets.md).
      const logins = [
        ['ldap/admin', ADMIN_DN, ADMIN_PASSWORD],
        ['ldap/wrong', ADMIN_DN, 'wrong'],
        ['ldap/no-dn', '', ADMIN_PASSWORD],
      ]
      for (const [id, name, secret] of logins) {
        const res = await t.json('PUT', `/v1/secrets/${id}`, { body: { name, secret } })
        expect(res.status).toBe(200)
      }
    })
    afterAll(async () => {
      await t?.close()
      slapd?.close()
      pki?.cleanup()
    })

    it('binds, fails over from a dead server to a replica and reads every page', async () => {
      const res = await put('people', { urls: [deadUrl, slapd.url], search: { ...people, page_size: 2 } })
      expect(res.status, res.body.message).toBe(200)
      expect(res.body.result).toMatchObject({
        rate_limit: 3,
        search: { scope: 'whole-subtree', deref: 'never' },
      })
      expect(await run('people')).toMatchObject({ code: 'ok', items: 5 })
      const stored = (await bundleData()).people as Array<{ dn: string; uid: string[]; mail: string[] }>
      expect(stored.map((p) => p.uid[0]).sort()).toEqual(PEOPLE)
      expect(stored.find((p) => p.uid[0] === 'alice')).toEqual({
        dn: 'uid=alice,ou=people,dc=example,dc=org',
        uid: ['alice'],
        mail: ['alice@example.org'],
      })
    })

    it('honours the scope', async () => {
      await put('one', {
        urls: [slapd.url],
        search: {
          base_DN: 'uid=bob,ou=people,dc=example,dc=org',
          filter: '(objectClass=*)',
          scope: 'base-object',
        },
      })
      expect(await run('one')).toMatchObject({ code: 'ok', items: 1 })
      await put('level', {
        urls: [slapd.url],
        search: { base_DN: 'dc=example,dc=org', filter: '(objectClass=*)', scope: 'single-level' },
      })
      expect(await run('level')).toMatchObject({ code: 'ok', items: 2 })
    })

    it('carries a group membership change into the bundle, filtered with Rego', async () => {
      await put('admins', {
        urls: [slapd.url],
        search: { base_DN: 'ou=groups,dc=example,dc=org', filter: '(cn=admins)', attributes: ['member'] },
        policy_filter:
          'package f\n\nadmins contains uid if {\n\tsome m in input[0].member\n\tuid := trim_prefix(split(m, ",")[0], "uid=")\n}\n',
        policy_query: 'data.f.admins',
      })
      expect(await run('admins')).toMatchObject({ code: 'ok' })
      expect((await bundleData()).admins).toEqual(['alice'])
      slapd.modify(
        'dn: cn=admins,ou=groups,dc=example,dc=org\nchangetype: modify\nadd: member\nmember: uid=bob,ou=people,dc=example,dc=org\n',
      )
      expect(await run('admins')).toMatchObject({ code: 'ok' })
      expect((await bundleData()).admins).toEqual(['alice', 'bob'])
    })

    it('reads over ldaps and StartTLS with the generated CA, and fails without it', async () => {
      await put('ldaps', { urls: [slapd.ldapsUrl], search: people, ca_certificate: pki.ca })
      expect(await run('ldaps')).toMatchObject({ code: 'ok', items: 5 })
      await put('starttls', { urls: [slapd.url], search: people, ca_certificate: pki.ca })
      expect(await run('starttls')).toMatchObject({ code: 'ok', items: 5 })
      await put('noca', { urls: [slapd.ldapsUrl], search: people })
      const refused = await run('noca')
      expect(refused.code).toBe('error')
      expect(refused.message).toMatch(/TLS error|certificate/i)
    })

    it('reports wrong credentials and keeps the last good data', async () => {
      await put('people', { urls: [slapd.url], search: people, credentials: 'ldap/wrong' })
      const failed = await run('people')
      expect(failed).toMatchObject({
        code: 'error',
        message: `auth error: ${slapd.url}: invalid credentials`,
      })
      expect((await bundleData()).people).toHaveLength(5)
    })

    it('refuses a login secret without a name (LDAP has no tokens), naming the secret, and keeps the last good data', async () => {
      await put('people', { urls: [slapd.url], search: people, credentials: 'ldap/no-dn' })
      expect(await run('people')).toMatchObject({
        code: 'error',
        message:
          'secret error: credentials: secret "ldap/no-dn" has an empty name (a login secret\'s name is the bind DN and its value the password)',
      })
      expect((await bundleData()).people).toHaveLength(5)
    })

    it('says when no server answers', async () => {
      await put('nowhere', { urls: [deadUrl], search: people })
      const failed = await run('nowhere')
      expect(failed.code).toBe('error')
      expect(failed.message).toMatch(/^connection error: no server answered \(ldap:\/\/127\.0\.0\.1:\d+: /)
    })
  })
}
