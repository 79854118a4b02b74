import { request } from 'undici'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import type { RunningRelay } from '../../../relay/relay.js'
import { makeBundle } from '../../support/fault-upstream.js'
import { eventually, relayConfig, startTestRelay, tempDir } from '../helpers.js'
import { S3TestServer } from '../support/s3-server.js'

const credentials = {
  accessKeyId: 'AKIDRELAYTEST',
  secretAccessKey: 'relay-test-secret/abc+def',
  region: 'eu-west-1',
}
const env = {
  AWS_ACCESS_KEY_ID: credentials.accessKeyId,
  AWS_SECRET_ACCESS_KEY: credentials.secretAccessKey,
  AWS_REGION: credentials.region,
}

describe('bundles from an S3-compatible registry', () => {
  let s3: S3TestServer
  let relay: RunningRelay | undefined
  let dir: Awaited<ReturnType<typeof tempDir>>
  beforeEach(async () => {
    s3 = await new S3TestServer(credentials).start()
    dir = await tempDir()
  })
  afterEach(async () => {
    await relay?.stop()
    relay = undefined
    await s3.stop()
    await dir.cleanup()
  })

  const config = () =>
    relayConfig(`
services:
  registry:
    url: ${s3.url}/bundles-bucket
    credentials: { s3_signing: { environment_credentials: {} } }
bundles:
  authz:
    resource: systems/abc/bundle.tar.gz
    polling: { min_delay_seconds: 1, max_delay_seconds: 1 }
`)

  it('pulls with SigV4-signed conditional GETs and serves agents at the configured resource', async () => {
    const first = await makeBundle({ revision: 's3-1' })
    s3.put('bundles-bucket/systems/abc/bundle.tar.gz', first)
    relay = await startTestRelay(config(), dir.dir, { env })
    await eventually(
      async () => (await request(`${relay!.url}/health/ready`)).statusCode === 200,
      5000,
      'ready',
    )
    const res = await request(`${relay.url}/v1/systems/abc/bundle.tar.gz`)
    expect(res.statusCode).toBe(200)
    expect(Buffer.from(await res.body.arrayBuffer()).equals(Buffer.from(first))).toBe(true)
    // The next pull is conditional (S3 answers 304) and still signed.
    await eventually(() => s3.outcomes.length >= 2, 5000, 'second pull')
    expect(s3.outcomes.every((o) => o === 'ok')).toBe(true)
    const second = await makeBundle({ revision: 's3-2' })
    s3.put('bundles-bucket/systems/abc/bundle.tar.gz', second)
    await eventually(
      async () =>
        Buffer.from(
          await (await request(`${relay!.url}/v1/systems/abc/bundle.tar.gz`)).body.arrayBuffer(),
        ).equals(Buffer.from(second)),
      5000,
      'new revision',
    )
  })

  it('is refused by the registry with wrong keys, and reports why', async () => {
    s3.put('bundles-bucket/systems/abc/bundle.tar.gz', await makeBundle({ revision: 's3-1' }))
    relay = await startTestRelay(config(), dir.dir, { env: { ...env, AWS_SECRET_ACCESS_KEY: 'wrong' } })
    await eventually(() => s3.outcomes.includes('SignatureDoesNotMatch'), 5000, 'refusal')
    const status = (await (await request(`${relay.url}/v1/relay/status`)).body.json()) as {
      bundles: { authz: { revision: string | null; last_error: { http_status: number } | null } }
    }
    expect(status.bundles.authz.revision).toBeNull()
    expect(status.bundles.authz.last_error?.http_status).toBe(403)
  })

  it('names the missing credentials at start', async () => {
    await expect(startTestRelay(config(), dir.dir, { env: {} })).rejects.toThrow(
      'services.registry.credentials.s3_signing.environment_credentials: AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY are not set',
    )
  })
})
