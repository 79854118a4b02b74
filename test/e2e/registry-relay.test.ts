/**
 * End to end through an object store: the service uploads a system's bundles to an s3rver
 * bucket (its bundle registry), a `regent relay` process pulls them from the bucket with SigV4
 * (it has no connection to the service at all) and a simulated OPA agent long-polls the relay.
 * New revisions reach the agent through the bucket, also after the service is stopped.
 */
import { writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readBundle } from '../../core/bundle/index.js'
import { eventually, tempDir } from '../relay/helpers.js'
import { type RegentProcess, startRegent } from '../relay/support/processes.js'
import { startTestService, type TestService } from '../service/harness.js'
import { BACKENDS } from '../store/backends.js'
import { AgentSimulator } from '../support/agent-simulator.js'
import { makeBundle } from '../support/fault-upstream.js'
import { S3RVER_ACCESS_KEY, S3RVER_SECRET_KEY, S3rverBucketServer } from '../support/s3rver-bucket.js'

const BUCKET = 'opa-registry'
const sqlite = BACKENDS.find((b) => b.name === 'sqlite')!

const policy = (greeting: string) => ({
  modules: { 'main.rego': `package main\n\n# ${greeting}\nallow if input.user == "alice"\n` },
})

describe('service -> S3 bucket -> relay -> agent', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>
  let s3: S3rverBucketServer
  let service: TestService | undefined
  let relay: RegentProcess | undefined
  let agent: AgentSimulator | undefined
  let systemId: string

  beforeAll(async () => {
    dir = await tempDir('regent-e2e-registry-')
    s3 = await new S3rverBucketServer([BUCKET]).start()
    service = await startTestService(sqlite, 'bundle_registry: { retry_min_ms: 50, retry_max_ms: 500 }')
    expect(
      (
        await service.call('PUT', '/v1/secrets/registry', {
          body: { name: S3RVER_ACCESS_KEY, secret: S3RVER_SECRET_KEY },
        })
      ).status,
    ).toBe(200)
    const created = await service.json<{ result: { id: string } }>('POST', '/v1/systems', {
      body: {
        name: 'edge',
        type: 'custom',
        bundle_registry: {
          distribution_s3: {
            region: 'us-east-1',
            bucket: BUCKET,
            endpoint: s3.url,
            access_keys: 'registry',
            policy_path: 'systems/{system_id}/bundle.tar.gz',
          },
        },
      },
    })
    expect(created.status).toBe(200)
    systemId = created.body.result.id
  }, 60_000)

  afterAll(async () => {
    await agent?.stop()
    await relay?.stop()
    await service?.close()
    await s3?.cleanup()
    await dir?.cleanup()
  })

  /** Waits until the bucket holds the service's current policy bundle; resolves to its revision. */
  async function uploadedRevision(): Promise<string> {
    let revision = ''
    await eventually(
      async () => {
        const deploy = await service!.json<{
          result: { policy: { state: string; revision: string } | null }
        }>('GET', `/v1/systems/${systemId}/bundle-deploy`)
        const policyStatus = deploy.body.result.policy
        revision = policyStatus?.revision ?? ''
        return policyStatus?.state === 'uploaded'
      },
      15_000,
      'upload to the bucket',
    )
    return revision
  }

  it('delivers every new revision to the agent through the bucket, with the service up and after it stops', async () => {
    expect(
      (await service!.call('PUT', `/v1/policies/systems/${systemId}/main`, { body: policy('v1') })).status,
    ).toBe(200)
    const first = await uploadedRevision()

    const configFile = join(dir.dir, 'relay.yaml')
    writeFileSync(
      configFile,
      `services:
  registry:
    url: ${s3.url}/${BUCKET}
    credentials: { s3_signing: { environment_credentials: {} } }
bundles:
  edge:
    service: registry
    resource: systems/${systemId}/bundle.tar.gz
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
    await eventually(
      async () => (await request(`${relay!.url}/health/ready`)).statusCode === 200,
      15_000,
      'relay ready',
    )

    agent = new AgentSimulator({
      url: `${relay.url}/v1/systems/${systemId}/bundle.tar.gz`,
      longPollSeconds: 10,
    })
    agent.start()
    await agent.waitForRevision(first, 15_000)

    // A second revision built by the service reaches the agent through the bucket.
    expect(
      (await service!.call('PUT', `/v1/policies/systems/${systemId}/main`, { body: policy('v2') })).status,
    ).toBe(200)
    const second = await uploadedRevision()
    expect(second).not.toBe(first)
    await agent.waitForRevision(second, 15_000)
    const fromBucket = await s3.get(BUCKET, `systems/${systemId}/bundle.tar.gz`)
    expect((await readBundle(fromBucket!.bytes)).manifest.revision).toBe(second)

    // The service goes away; the relay keeps serving and still follows the bucket.
    await service!.close()
    service = undefined
    const served = await request(`${relay.url}/v1/systems/${systemId}/bundle.tar.gz`)
    expect(served.statusCode).toBe(200)
    expect((await readBundle(new Uint8Array(await served.body.arrayBuffer()))).manifest.revision).toBe(second)
    await s3.put(
      BUCKET,
      `systems/${systemId}/bundle.tar.gz`,
      await makeBundle({ revision: 'published-while-service-down' }),
    )
    await agent.waitForRevision('published-while-service-down', 15_000)
    expect(agent.activations.map((a) => a.revision)).toEqual([first, second, 'published-while-service-down'])
  }, 120_000)
})
