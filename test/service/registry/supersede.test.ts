/**
 * A deployment made while an earlier one is still retrying supersedes it: the earlier upload
 * stops, and once the bucket is reachable it holds the newer version, never the older one.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { eventually } from '../../relay/helpers.js'
import { BACKENDS } from '../../store/backends.js'
import { S3RVER_ACCESS_KEY, S3RVER_SECRET_KEY, S3rverBucketServer } from '../../support/s3rver-bucket.js'
import { startTestService, type TestService } from '../harness.js'

const BUCKET = 'superseded-bundles'
const sqlite = BACKENDS.find((b) => b.name === 'sqlite')!

type Version = { bundle: string; version: number; upload: { state: string } }

describe('bundle registry deployments while uploads retry', () => {
  const s3 = new S3rverBucketServer([BUCKET])
  let t: TestService | undefined
  afterAll(async () => {
    await t?.close()
    await s3.cleanup()
  })

  it('stops retrying a superseded version and uploads the newer one', async () => {
    await s3.start()
    const port = Number(new URL(s3.url).port)
    const endpoint = s3.url
    await s3.stop()
    t = await startTestService(
      sqlite,
      'bundle_registry: { upload_retries: 1000, retry_min_ms: 50, retry_max_ms: 100, upload_timeout_ms: 2000 }',
    )
    await t.call('PUT', '/v1/secrets/keys', { body: { name: S3RVER_ACCESS_KEY, secret: S3RVER_SECRET_KEY } })
    const created = await t.json<{ result: { id: string } }>('POST', '/v1/systems', {
      body: {
        name: 'superseded',
        type: 'custom',
        bundle_registry: {
          manual_deployment: true,
          distribution_s3: { region: 'us-east-1', bucket: BUCKET, endpoint, access_keys: 'keys' },
        },
      },
    })
    expect(created.status).toBe(200)
    const id = created.body.result.id
    const put = await t.call('PUT', `/v1/policies/systems/${id}/main`, {
      body: { modules: { 'main.rego': 'package main\n\nallow := true\n' } },
    })
    expect(put.status).toBe(200)
    const policyStates = async () =>
      Object.fromEntries(
        (await t!.json<{ result: Version[] }>('GET', `/v1/systems/${id}/bundles`)).body.result
          .filter((v) => v.bundle === 'policy')
          .map((v) => [v.version, v.upload.state]),
      )

    expect((await t.call('PUT', `/v1/systems/${id}/bundle-deploy`, { body: { primary: 1 } })).status).toBe(
      200,
    )
    await eventually(async () => (await policyStates())[1] === 'retrying', 10_000, 'version 1 retrying')
    expect((await t.call('PUT', `/v1/systems/${id}/bundle-deploy`, { body: { primary: 2 } })).status).toBe(
      200,
    )
    await eventually(async () => (await policyStates())[1] === 'superseded', 10_000, 'version 1 superseded')

    await s3.start(port)
    await eventually(async () => (await policyStates())[2] === 'uploaded', 10_000, 'version 2 uploaded')
    const v2 = new Uint8Array(
      await (await t.call('GET', `/v1/systems/${id}/bundles/policy/2/bundle`)).arrayBuffer(),
    )
    const object = await s3.get(BUCKET, `systems/${id}/bundle.tar.gz`)
    expect(Buffer.from(object!.bytes).equals(Buffer.from(v2))).toBe(true)
    expect((await policyStates())[1]).toBe('superseded')
  })
})
