/**
 * End to end from a directory to a data filter: a real OpenLDAP `slapd`, the service polling it
 * through an `ldap` datasource of a system (a Rego filter turns the group into a list of uids),
 * a `regent relay` process long-polling that system's bundle, and `POST /v1/compile` on the
 * relay. Adding a user to the group in slapd (ldapmodify) changes the relay's SQL answer for
 * that user within one polling interval plus the bundle's way to the relay; no API call tells
 * the service that anything changed. Skipped with the reason when slapd is not installed.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually, tempDir } from '../relay/helpers.js'
import { type RegentProcess, startRegent } from '../relay/support/processes.js'
import { startTestService, type TestService } from '../service/harness.js'
import { BACKENDS } from '../store/backends.js'
import { ADMIN_DN, ADMIN_PASSWORD, type Slapd, slapdMissing, startSlapd } from '../support/slapd.js'

const missing = slapdMissing()
if (missing) console.log(`skipping the ldap -> relay compile end-to-end test: ${missing}`)

const sqlite = BACKENDS.find((b) => b.name === 'sqlite')!
const POLLING_INTERVAL_MS = 2_000
/** The bundle rebuild, the relay's long poll answering and its compile workers loading it. */
const PROPAGATION_MS = 5_000

const person = (uid: string) =>
  `dn: uid=${uid},ou=people,dc=example,dc=org\nobjectClass: inetOrgPerson\nuid: ${uid}\ncn: ${uid}\nsn: ${uid}\n`
const ENTRIES = [
  'dn: ou=people,dc=example,dc=org\nobjectClass: organizationalUnit\nou: people\n',
  person('alice'),
  person('bob'),
  'dn: ou=groups,dc=example,dc=org\nobjectClass: organizationalUnit\nou: groups\n',
  'dn: cn=admins,ou=groups,dc=example,dc=org\nobjectClass: groupOfNames\ncn: admins\nmember: uid=alice,ou=people,dc=example,dc=org\n',
].join('\n')

// Admins see every ticket, everyone else the tickets they own.
const FILTER_POLICY = `package filters

import rego.v1

# METADATA
# scope: document
# compile:
#   unknowns: [input.tickets]
include if input.user in data.admins

include if input.tickets.owner == input.user
`

// The datasource's Rego filter: the group entry's member DNs become the list of uids.
const GROUP_FILTER = `package ldapfilter

import rego.v1

admins := sort([uid |
\tsome m in input[0].member
\tuid := trim_prefix(split(m, ",")[0], "uid=")
])
`

describe.skipIf(missing !== undefined)('ldap group change -> service bundle -> relay /v1/compile', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>
  let slapd: Slapd
  let service: TestService
  let relay: RegentProcess | undefined
  let systemId: string

  beforeAll(async () => {
    dir = await tempDir('regent-e2e-ldap-')
    slapd = await startSlapd(ENTRIES)
    service = await startTestService(sqlite, 'datasources: {scheduler_interval: 200ms, timeout: 10s}')
    const created = await service.json<{ result: { id: string } }>('POST', '/v1/systems', {
      body: { name: 'tickets', type: 'custom' },
    })
    expect(created.status).toBe(200)
    systemId = created.body.result.id
    const policy = await service.call('PUT', `/v1/policies/systems/${systemId}/filters`, {
      body: { modules: { 'filters.rego': FILTER_POLICY } },
    })
    expect(policy.status).toBe(200)
    const secret = await service.call('PUT', '/v1/secrets/ldap/admin', {
      body: { name: ADMIN_DN, secret: ADMIN_PASSWORD },
    })
    expect(secret.status).toBe(200)
    const datasource = await service.json<{ message?: string }>(
      'PUT',
      `/v1/datasources/systems/${systemId}/admins`,
      {
        body: {
          category: 'ldap',
          urls: [slapd.url],
          credentials: 'ldap/admin',
          polling_interval: `${POLLING_INTERVAL_MS / 1000}s`,
          search: { base_DN: 'ou=groups,dc=example,dc=org', filter: '(cn=admins)', attributes: ['member'] },
          policy_filter: GROUP_FILTER,
          policy_query: 'data.ldapfilter.admins',
        },
      },
    )
    expect(datasource.status, datasource.body.message).toBe(200)
    const asset = await service.call('GET', `/v1/systems/${systemId}/assets/relay-config`)
    expect(asset.status).toBe(200)
    const configFile = join(dir.dir, 'relay.yaml')
    writeFileSync(configFile, await asset.text())
    relay = await startRegent([
      'relay',
      '-c',
      configFile,
      '--addr',
      '127.0.0.1:0',
      '--data-dir',
      join(dir.dir, 'relay'),
    ])
  }, 60_000)

  afterAll(async () => {
    await relay?.stop()
    await service?.close()
    slapd?.close()
    await dir?.cleanup()
  })

  /** The relay's SQL answer for `user`: undefined while it cannot answer yet. */
  async function compileFor(user: string): Promise<string | undefined> {
    const res = await request(`${relay!.url}/v1/compile/filters/include`, {
      method: 'POST',
      headers: { accept: 'application/vnd.opa.sql.postgresql+json', 'content-type': 'application/json' },
      body: JSON.stringify({ input: { user } }),
    })
    const body = (await res.body.json()) as { result?: { query?: string } }
    return res.statusCode === 200 ? body.result?.query : undefined
  }

  it('follows adding and removing group members within one polling interval each', async () => {
    // The first poll ran at PUT time or on the next tick: alice is an admin, bob owns tickets.
    await eventually(async () => (await compileFor('alice')) === '', 15_000, 'alice answered as an admin')
    const before = await compileFor('bob')
    expect(before).toBe("WHERE tickets.owner = E'bob'")

    slapd.modify(
      'dn: cn=admins,ou=groups,dc=example,dc=org\nchangetype: modify\nadd: member\nmember: uid=bob,ou=people,dc=example,dc=org\n',
    )
    const changedAt = Date.now()
    const budget = POLLING_INTERVAL_MS + PROPAGATION_MS
    await eventually(async () => (await compileFor('bob')) === '', budget, 'bob answered as an admin')
    const elapsed = Date.now() - changedAt
    expect(elapsed).toBeLessThanOrEqual(budget)

    // A removal travels the same way: alice is no longer an admin.
    slapd.modify(
      'dn: cn=admins,ou=groups,dc=example,dc=org\nchangetype: modify\ndelete: member\nmember: uid=alice,ou=people,dc=example,dc=org\n',
    )
    const removedAt = Date.now()
    await eventually(
      async () => (await compileFor('alice')) === "WHERE tickets.owner = E'alice'",
      budget,
      'alice answered as an owner',
    )
    expect(Date.now() - removedAt).toBeLessThanOrEqual(budget)
    expect(await compileFor('bob')).toBe('')

    // The datasource's status tells the same story: a successful run after the change.
    const status = await service.json<{ result: { status: { code: string; last_success: string } } }>(
      'GET',
      `/v1/datasources/systems/${systemId}/admins`,
    )
    expect(status.body.result.status.code).toBe('ok')
    expect(Date.parse(status.body.result.status.last_success)).toBeGreaterThanOrEqual(changedAt)
  }, 60_000)
})
