/**
 * Every datasource category that runs here without an extra server reaches an agent through the
 * relay (issue 20, "Tests and figures"): one service in-process, one `regent relay` process
 * started from the system's generated relay-config with bearer agent auth, and one datasource per
 * category in the same system: `http` (a local HTTP server), `rest` (the data POSTed),
 * `git/content`, `git/rego` and `git/blame` (a bare repository over file://), `cloud/objstore`,
 * `store2/content`, `bundle/objstore` and `store2/bundle` (s3rver), `policy-library` (a library
 * PUT), `cluster/resources` (a minimal Kubernetes API over HTTPS, test/support/fake-kube-api.ts),
 * `cloud/ecr` and `idp` (minimal ECR and Okta-style APIs, test/support/fake-{ecr,idp}-api.ts).
 * Each is triggered with the documented `POST /v1/datasources/{id}`, then the bundle is fetched
 * from the relay as an agent does (with the system's agent token from its opa-config) until every
 * category's data and modules are in it. Not here: `ldap` (its own e2e test with slapd,
 * ldap-relay-compile) and `stream` (needs a Kafka broker).
 */

import { rmSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { parse, stringify } from 'yaml'
import { type Bundle, readBundle } from '../../core/bundle/index.js'
import { eventually, tempDir } from '../relay/helpers.js'
import { type RegentProcess, startRegent } from '../relay/support/processes.js'
import { goodBundle } from '../service/datasources/bundle-tarballs.js'
import { git, tempDir as gitTempDir, makeOrigin } from '../service/git/fixtures.js'
import { startTestService, type TestService } from '../service/harness.js'
import { BACKENDS } from '../store/backends.js'
import { type FakeEcrApi, startFakeEcrApi } from '../support/fake-ecr-api.js'
import { type FakeIdpApi, startFakeIdpApi } from '../support/fake-idp-api.js'
import { type FakeKubeApi, startFakeKubeApi } from '../support/fake-kube-api.js'
import { S3RVER_ACCESS_KEY, S3RVER_SECRET_KEY, S3rverBucketServer } from '../support/s3rver-bucket.js'

const sqlite = BACKENDS.find((b) => b.name === 'sqlite')!
/** The service's bundle rebuilds, the relay's long poll answering and its download. */
const PROPAGATION_MS = 15_000

const LIBRARY = 'package libraries.common\n\nsplit_url(url) := split(trim(url, "/"), "/")\n'

const IDP_USERS = [{ id: '00u1', status: 'ACTIVE', profile: { login: 'alice@example.com' } }]
const IDP_GROUPS = [{ id: '00g1', type: 'OKTA_GROUP', profile: { name: 'admins' } }]

/** What each category's datasource should put where in the bundle's data. */
const EXPECTED_DATA: Record<string, unknown> = {
  http: { users: [{ name: 'alice', role: 'admin' }] },
  rest: { tickets: { t1: { owner: 'bob' } } },
  git_content: { teams: { red: { members: ['alice'] } }, regions: { regions: { eu: 'fr' } } },
  git_rego: { flags: { beta: true } },
  cloud_objstore: { users: { u0: { id: 0 } }, teams: { red: ['u0'] } },
  bundle_objstore: { groups: { ops: ['carol'] } },
  store2_content: { users: { u0: { id: 0 } }, teams: { red: ['u0'] } },
  store2_bundle: { groups: { ops: ['carol'] } },
}

describe('every locally runnable datasource category -> service bundle -> relay -> agent', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>
  let gitRoot: string
  let httpSource: Server
  let s3: S3rverBucketServer
  let kube: FakeKubeApi
  let ecr: FakeEcrApi
  let idp: FakeIdpApi
  const previousEcrEndpoint = process.env.AWS_ENDPOINT_URL_ECR
  let service: TestService
  let relay: RegentProcess | undefined
  let systemId: string
  let agentToken: string
  let headCommit: string

  beforeAll(async () => {
    dir = await tempDir('regent-e2e-datasources-')
    httpSource = createServer((req, res) => {
      if (req.url !== '/users') {
        res.writeHead(404).end()
        return
      }
      res.writeHead(200, { 'content-type': 'application/json' })
      res.end(JSON.stringify(EXPECTED_DATA.http))
    })
    await new Promise<void>((resolve) => httpSource.listen(0, '127.0.0.1', resolve))

    gitRoot = gitTempDir()
    const origin = makeOrigin(gitRoot, {
      'data/teams/red.json': '{"members": ["alice"]}',
      'data/regions.xml': '<regions><eu>fr</eu></regions>',
      'bundles/flags.tar.gz': await goodBundle(EXPECTED_DATA.git_rego as Record<string, unknown>),
    })

    headCommit = git(origin.work, 'rev-parse', 'HEAD')

    s3 = await new S3rverBucketServer(['data']).start()
    const text = (s: string) => new TextEncoder().encode(s)
    await s3.put('data', 'feeds/users/u0.json', text('{"id": 0}'))
    await s3.put('data', 'feeds/teams.yaml', text('red: [u0]\n'))
    await s3.put(
      'data',
      'bundles/groups.tar.gz',
      await goodBundle(EXPECTED_DATA.bundle_objstore as Record<string, unknown>),
    )

    kube = await startFakeKubeApi([
      ['web-1', 'default', 'Running'],
      ['api-1', 'payments', 'Running'],
    ])
    ecr = await startFakeEcrApi({
      region: 'eu-west-1',
      accessKeyId: 'AKIAREGENTE2E0000001',
      registryId: '111111111111',
      images: { api: ['v1', 'v2'] },
    })
    idp = await startFakeIdpApi({
      clientId: 'e2e-client',
      clientSecret: 'e2e-client-secret',
      users: IDP_USERS,
      groups: IDP_GROUPS,
    })
    // The documented override that points cloud/ecr at another endpoint (the service is in-process).
    process.env.AWS_ENDPOINT_URL_ECR = ecr.url
    service = await startTestService(
      sqlite,
      JSON.stringify({ datasources: { scheduler_interval: '1h', timeout: '10s', cluster: kube.settings } }),
    )
    const created = await service.json<{ result: { id: string } }>('POST', '/v1/systems', {
      body: { name: 'everything', type: 'custom' },
    })
    expect(created.status).toBe(200)
    systemId = created.body.result.id
    expect(
      (
        await service.call('PUT', '/v1/secrets/s3/keys', {
          body: { name: S3RVER_ACCESS_KEY, secret: S3RVER_SECRET_KEY },
        })
      ).status,
    ).toBe(200)
    expect(
      (await service.call('PUT', '/v1/secrets/idp/client', { body: { secret: 'e2e-client-secret' } })).status,
    ).toBe(200)
    expect(
      (
        await service.call('PUT', '/v1/secrets/aws/keys', {
          body: { name: 'AKIAREGENTE2E0000001', secret: 'e2e-secret-key' },
        })
      ).status,
    ).toBe(200)
    expect(
      (
        await service.call('PUT', '/v1/libraries/common', {
          body: { modules: { 'url.rego': LIBRARY } },
        })
      ).status,
    ).toBe(200)

    const s3Common = { bucket: 'data', credentials: 's3/keys', endpoint: s3.url, region: 'us-east-1' }
    const gitCommon = { url: `file://${origin.bare}`, reference: 'refs/heads/main' }
    const configs: Record<string, Record<string, unknown>> = {
      http: { category: 'http', url: `http://127.0.0.1:${(httpSource.address() as AddressInfo).port}/users` },
      rest: { category: 'rest' },
      git_content: { category: 'git/content', ...gitCommon, path: 'data' },
      git_rego: { category: 'git/rego', ...gitCommon, path: 'bundles/flags.tar.gz' },
      cloud_objstore: { category: 'cloud/objstore', ...s3Common, path: 'feeds' },
      bundle_objstore: { category: 'bundle/objstore', ...s3Common, path: 'bundles/groups.tar.gz' },
      store2_content: { category: 'store2/content', ...s3Common, path: 'feeds' },
      store2_bundle: { category: 'store2/bundle', ...s3Common, path: 'bundles/groups.tar.gz' },
      ecr: { category: 'cloud/ecr', region: 'eu-west-1', credentials: 'aws/keys' },
      idp: {
        category: 'idp',
        idp_tenant: idp.url,
        idp_client_id: 'e2e-client',
        idp_client_secret: 'idp/client',
        idp_enable_roles: false,
        idp_enable_apps: false,
      },
      git_blame: { category: 'git/blame', ...gitCommon, path_regexp: 'data/teams/.*' },
      'libraries/common': { category: 'policy-library' },
      cluster: { category: 'cluster/resources', on_premises: true, masks: { pods: ['spec.containers.env'] } },
    }
    for (const [name, body] of Object.entries(configs)) {
      const res = await service.json<{ message?: string }>('PUT', datasource(name), { body })
      expect(res.status, `${name}: ${res.body.message}`).toBe(200)
    }

    // The relay runs from the system's generated config, with agent auth on: only the system's
    // agent token (what its opa-config carries) may fetch the bundle.
    const opaConfig = parse(
      await (await service.call('GET', `/v1/systems/${systemId}/assets/opa-config`)).text(),
    ) as { services: unknown }
    agentToken = bearerToken(opaConfig.services)
    const relayConfig = parse(
      await (await service.call('GET', `/v1/systems/${systemId}/assets/relay-config`)).text(),
    ) as Record<string, unknown>
    relayConfig.relay = {
      ...((relayConfig.relay as object | null) ?? {}),
      agent_auth: { type: 'bearer', tokens: [agentToken] },
    }
    const configFile = join(dir.dir, 'relay.yaml')
    writeFileSync(configFile, stringify(relayConfig))
    relay = await startRegent([
      'relay',
      '-c',
      configFile,
      '--addr',
      '127.0.0.1:0',
      '--data-dir',
      join(dir.dir, 'relay'),
    ])
  }, 40_000)

  afterAll(async () => {
    await relay?.stop()
    await service?.close()
    await s3?.cleanup()
    await kube?.close()
    await ecr?.close()
    await idp?.close()
    if (previousEcrEndpoint === undefined) delete process.env.AWS_ENDPOINT_URL_ECR
    else process.env.AWS_ENDPOINT_URL_ECR = previousEcrEndpoint
    await new Promise((resolve) => httpSource?.close(resolve))
    if (gitRoot) rmSync(gitRoot, { recursive: true, force: true })
    await dir?.cleanup()
  })

  const datasource = (name: string) => `/v1/datasources/systems/${systemId}/${name}`

  /** The bundle as an agent gets it from the relay: undefined while the relay has none yet. */
  async function agentBundle(): Promise<Bundle | undefined> {
    const res = await request(`${relay!.url}/v1/bundles/systems/${systemId}`, {
      headers: { authorization: `Bearer ${agentToken}` },
    })
    if (res.statusCode !== 200) {
      await res.body.dump()
      return undefined
    }
    return readBundle(new Uint8Array(await res.body.arrayBuffer()))
  }

  it('triggers each category and finds its data (and the library modules) in the relayed bundle', async () => {
    const rest = await service.json<{ result: { code: string }; message?: string }>(
      'POST',
      datasource('rest'),
      {
        body: EXPECTED_DATA.rest,
      },
    )
    expect(rest.status, rest.body.message).toBe(200)
    expect(rest.body.result.code).toBe('ok')
    const triggered = [
      ...Object.keys(EXPECTED_DATA).filter((n) => n !== 'rest'),
      'libraries/common',
      'cluster',
      'git_blame',
      'ecr',
      'idp',
    ]
    for (const name of triggered) {
      const run = await service.json<{ result: { code: string; message: string }; message?: string }>(
        'POST',
        datasource(name),
      )
      expect(run.status, `${name}: ${run.body.message}`).toBe(200)
      expect(run.body.result, name).toMatchObject({ code: 'ok' })
    }

    let bundle: Bundle | undefined
    const complete = (b: Bundle | undefined) => {
      const data = (b?.data ?? {}) as Record<string, unknown>
      return (
        [...Object.keys(EXPECTED_DATA), 'cluster', 'git_blame', 'ecr', 'idp'].every(
          (name) => data[name] !== undefined,
        ) && (b?.modules ?? []).some((m) => m.path.replace(/^\//, '') === 'libraries/common/url.rego')
      )
    }
    await eventually(
      async () => {
        bundle = await agentBundle()
        return complete(bundle)
      },
      PROPAGATION_MS,
      'every category in the relayed bundle',
    )
    const data = bundle!.data as Record<string, unknown>
    for (const [name, expected] of Object.entries(EXPECTED_DATA)) expect(data[name], name).toEqual(expected)
    // idp: the lists as the provider sends them, the switched-off ones absent.
    expect(data.idp).toEqual({ users: IDP_USERS, groups: IDP_GROUPS })
    // cloud/ecr: repositories keyed by name, each with its images.
    expect(data.ecr).toMatchObject({
      repositories: {
        api: { registryId: '111111111111', images: [{ imageTags: ['v1'] }, { imageTags: ['v2'] }] },
      },
    })
    // git/blame: the matched file's one line, from the repository's one commit.
    expect(data.git_blame).toEqual({
      'data/teams/red.json': [expect.objectContaining({ start: 1, end: 1, commit: headCommit })],
    })
    // cluster/resources: resources by type → namespace → name, kind filled in, masked paths gone.
    const cluster = data.cluster as Record<string, Record<string, Record<string, Record<string, unknown>>>>
    expect(Object.keys(cluster.namespaces ?? {}).sort()).toEqual(['default', 'kube-system', 'payments'])
    expect(Object.keys(cluster.pods ?? {}).sort()).toEqual(['default', 'payments'])
    const api1 = cluster.pods!.payments!['api-1']!
    expect(api1).toMatchObject({ kind: 'Pod', apiVersion: 'v1', status: { phase: 'Running' } })
    expect(JSON.stringify(api1)).not.toContain('hunter2')
    const library = bundle!.modules.find((m) => m.path.replace(/^\//, '') === 'libraries/common/url.rego')
    expect(library?.source).toBe(LIBRARY)
    // git/rego takes the bundle file's data only; its policy stays out of the system's bundle.
    expect(bundle!.modules.map((m) => m.source).join('\n')).not.toContain('package authz')

    // The relay's agent auth is really on: without the token there is no bundle.
    const anonymous = await request(`${relay!.url}/v1/bundles/systems/${systemId}`)
    expect(anonymous.statusCode).toBe(401)
    await anonymous.body.dump()
  }, 30_000)
})

/** The bearer token of the (only) service in an OPA config's `services` (a list or a map). */
function bearerToken(services: unknown): string {
  const list = Array.isArray(services) ? services : Object.values(services as Record<string, unknown>)
  const token = (list[0] as { credentials?: { bearer?: { token?: string } } })?.credentials?.bearer?.token
  if (!token) throw new Error('the opa-config carries no bearer token')
  return token
}
