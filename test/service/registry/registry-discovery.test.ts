/**
 * The discovery bundle a bundle registry holds points agents at the bucket: against s3rver, the
 * uploaded copy defines the bucket as a service (agents sign with their own credentials) and reads
 * the policy bundle from the system's `policy_path`, with the system's discovery overrides applied;
 * the copy the service serves itself still names the service. Renaming the system moves both
 * objects and the discovered resource. Then a `regent relay` booted with only the bucket and
 * discovery learns the policy bundle from the bucket's discovery bundle and serves it.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readBundle } from '../../../core/bundle/index.js'
import { eventually, tempDir } from '../../relay/helpers.js'
import { type RegentProcess, startRegent } from '../../relay/support/processes.js'
import { BACKENDS } from '../../store/backends.js'
import { S3RVER_ACCESS_KEY, S3RVER_SECRET_KEY, S3rverBucketServer } from '../../support/s3rver-bucket.js'
import { startTestService, type TestService } from '../harness.js'

const BUCKET = 'regent-discovery'
const sqlite = BACKENDS.find((b) => b.name === 'sqlite')!

interface Discovered {
  services?: Record<string, unknown>
  bundles: Record<string, { service: string; resource: string; persist?: boolean }>
  decision_logs: { service: string }
  labels?: unknown
  nd_builtin_cache?: boolean
}

describe('the registry discovery bundle points agents at the bucket', () => {
  let t: TestService
  let s3: S3rverBucketServer
  let dir: Awaited<ReturnType<typeof tempDir>>
  let relay: RegentProcess | undefined
  let id: string

  const registry = {
    distribution_s3: {
      region: 'us-east-1',
      bucket: BUCKET,
      endpoint: '',
      access_keys: 'registry/keys',
      policy_path: 'opa/{system_name}/{system_id}/bundle.tar.gz',
      discovery_path: 'opa/{system_name}/discovery.tar.gz',
    },
  }

  /** The discovery document in the bucket at `key`, once the active discovery version is uploaded there. */
  async function bucketDiscovery(key: string): Promise<Discovered> {
    await eventually(
      async () => {
        const deploy = await t.json<{ result: { discovery: { state: string; object: string } | null } }>(
          'GET',
          `/v1/systems/${id}/bundle-deploy`,
        )
        const discovery = deploy.body.result.discovery
        return discovery?.state === 'uploaded' && discovery.object.endsWith(`/${key}`)
      },
      10_000,
      `discovery upload to ${key}`,
    )
    const object = await s3.get(BUCKET, key)
    expect(object, key).toBeDefined()
    return (await readBundle(object!.bytes)).data.discovery as Discovered
  }

  beforeAll(async () => {
    dir = await tempDir('regent-registry-discovery-')
    s3 = await new S3rverBucketServer([BUCKET]).start()
    registry.distribution_s3.endpoint = s3.url
    t = await startTestService(sqlite, 'bundle_registry: { retry_min_ms: 20, retry_max_ms: 200 }')
    expect(
      (
        await t.call('PUT', '/v1/secrets/registry/keys', {
          body: { name: S3RVER_ACCESS_KEY, secret: S3RVER_SECRET_KEY },
        })
      ).status,
    ).toBe(200)
    const created = await t.json<{ result: { id: string } }>('POST', '/v1/systems', {
      body: {
        name: 'shop',
        type: 'custom',
        bundle_registry: registry,
        deployment_parameters: { discovery: { decision_logs: { reporting: { min_delay_seconds: 5 } } } },
      },
    })
    expect(created.status, JSON.stringify(created.body)).toBe(200)
    id = created.body.result.id
    const put = await t.call('PUT', `/v1/policies/systems/${id}/main`, {
      body: { modules: { 'main.rego': 'package main\n\nallow if input.user == "alice"\n' } },
    })
    expect(put.status).toBe(200)
  }, 30_000)

  afterAll(async () => {
    await relay?.stop()
    await t?.close()
    await s3?.cleanup()
    await dir?.cleanup()
  })

  it('defines the bucket as the policy bundle service in the uploaded copy only', async () => {
    const discovered = await bucketDiscovery('opa/shop/discovery.tar.gz')
    expect(discovered.services).toEqual({
      'bundle-registry': {
        url: `${s3.url}/${BUCKET}`,
        credentials: { s3_signing: { environment_credentials: {} } },
      },
    })
    expect(discovered.bundles).toEqual({
      [`systems/${id}`]: expect.objectContaining({
        service: 'bundle-registry',
        resource: `opa/shop/${id}/bundle.tar.gz`,
        persist: false,
      }),
    })
    // Logs and status still go to the service; the system's overrides apply to this copy too.
    expect(discovered.decision_logs).toMatchObject({ service: 'regent', reporting: { min_delay_seconds: 5 } })
    // The service's upload keys are not named, let alone given: agents bring their own.
    expect(JSON.stringify(discovered)).not.toContain('registry/keys')

    const served = await t.call('GET', `/v1/systems/${id}/discovery`)
    expect(served.status).toBe(200)
    const own = (await readBundle(new Uint8Array(await served.arrayBuffer()))).data.discovery as Discovered
    expect(own.services).toBeUndefined()
    expect(own.bundles[`systems/${id}`]).toMatchObject({
      service: 'regent',
      resource: `/bundles/systems/${id}`,
    })
  })

  it('a relay booted from the bucket alone learns and serves the policy bundle', async () => {
    const configFile = join(dir.dir, 'relay.yaml')
    writeFileSync(
      configFile,
      `services:
  bundle-registry:
    url: ${s3.url}/${BUCKET}
    credentials: { s3_signing: { environment_credentials: {} } }
discovery:
  service: bundle-registry
  resource: opa/shop/discovery.tar.gz
  polling: { min_delay_seconds: 1, max_delay_seconds: 1 }
`,
    )
    relay = await startRegent(
      ['relay', '-c', configFile, '--addr', '127.0.0.1:0', '--data-dir', join(dir.dir, 'relay')],
      {
        AWS_ACCESS_KEY_ID: S3RVER_ACCESS_KEY,
        AWS_SECRET_ACCESS_KEY: S3RVER_SECRET_KEY,
        AWS_REGION: 'us-east-1',
      },
    )
    const policyUrl = `${relay.url}/v1/opa/shop/${id}/bundle.tar.gz`
    let served: Uint8Array | undefined
    await eventually(
      async () => {
        const res = await request(policyUrl)
        if (res.statusCode !== 200) {
          await res.body.dump()
          return false
        }
        served = new Uint8Array(await res.body.arrayBuffer())
        return true
      },
      15_000,
      'the discovered policy bundle at the relay',
    )
    const direct = new Uint8Array(await (await t.call('GET', `/v1/bundles/systems/${id}`)).arrayBuffer())
    expect((await readBundle(served!)).manifest.revision).toBe((await readBundle(direct)).manifest.revision)
  }, 40_000)

  it('renaming the system moves the discovery object and the resource it names', async () => {
    const current = await t.json<{ result: Record<string, unknown> }>('GET', `/v1/systems/${id}`)
    const { name: _name, ...rest } = current.body.result
    const renamed = await t.json('PUT', `/v1/systems/${id}`, {
      body: {
        name: 'store',
        type: rest.type,
        bundle_registry: registry,
        deployment_parameters: rest.deployment_parameters,
      },
    })
    expect(renamed.status, JSON.stringify(renamed.body)).toBe(200)
    const discovered = await bucketDiscovery('opa/store/discovery.tar.gz')
    expect(discovered.bundles[`systems/${id}`]?.resource).toBe(`opa/store/${id}/bundle.tar.gz`)
  })
})
