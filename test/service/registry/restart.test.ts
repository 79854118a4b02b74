/**
 * An upload the bucket never got is done by the next start: the service restarts over the same
 * database, rebuilds every system, and uploads each active version the bucket lacks.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { afterAll, describe, expect, it } from 'vitest'
import { parseConfig } from '../../../core/config.js'
import { type RunningService, serviceSectionSchema, startService } from '../../../service/index.js'
import { eventually } from '../../relay/helpers.js'
import { S3RVER_ACCESS_KEY, S3RVER_SECRET_KEY, S3rverBucketServer } from '../../support/s3rver-bucket.js'

const ADMIN = 'registry-restart-admin-0123456789'
const BUCKET = 'restart-bundles'

describe('bundle registry across a restart', () => {
  const dataDir = mkdtempSync(join(tmpdir(), 'regent-registry-restart-'))
  const s3 = new S3rverBucketServer([BUCKET])
  let service: RunningService | undefined
  afterAll(async () => {
    await service?.stop()
    await s3.cleanup()
    rmSync(dataDir, { recursive: true, force: true })
  })

  const start = () =>
    startService({
      config: parseConfig(
        'bundle_registry: { upload_retries: 1, retry_min_ms: 20, retry_max_ms: 20, upload_timeout_ms: 2000 }',
        serviceSectionSchema,
      ),
      logger: pino({ level: 'silent' }),
      addr: '127.0.0.1:0',
      dataDir,
      adminToken: ADMIN,
      graceMs: 500,
    })

  async function call<T = { id: string; policy: { state: string } | null }>(
    method: string,
    path: string,
    body?: unknown,
  ) {
    const res = await fetch(`${service!.url}${path}`, {
      method,
      headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    return { status: res.status, body: (await res.json()) as { result: T } }
  }

  it('uploads on start what failed before the stop', async () => {
    await s3.start()
    const port = Number(new URL(s3.url).port)
    const endpoint = s3.url
    await s3.stop() // the bucket is unreachable while the system is created
    service = await start()
    expect(
      (await call('PUT', '/v1/secrets/keys', { name: S3RVER_ACCESS_KEY, secret: S3RVER_SECRET_KEY })).status,
    ).toBe(200)
    const created = await call('POST', '/v1/systems', {
      name: 'resumed',
      type: 'custom',
      bundle_registry: {
        distribution_s3: { region: 'us-east-1', bucket: BUCKET, endpoint, access_keys: 'keys' },
      },
    })
    expect(created.status).toBe(200)
    const id = created.body.result.id
    await eventually(
      async () =>
        (await call('GET', `/v1/systems/${id}/bundle-deploy`)).body.result.policy?.state === 'failed',
      10_000,
      'upload failed',
    )
    await service.stop()

    await s3.start(port)
    service = await start()
    await eventually(
      async () =>
        (await call('GET', `/v1/systems/${id}/bundle-deploy`)).body.result.policy?.state === 'uploaded',
      10_000,
      'upload after restart',
    )
    const object = await s3.get(BUCKET, `systems/${id}/bundle.tar.gz`)
    const served = new Uint8Array(
      await (
        await fetch(`${service.url}/v1/bundles/systems/${id}`, {
          headers: { Authorization: `Bearer ${ADMIN}` },
        })
      ).arrayBuffer(),
    )
    expect(Buffer.from(object!.bytes).equals(Buffer.from(served))).toBe(true)
    // One version of each bundle: the restart's rebuild of the same content added none.
    expect((await call<unknown[]>('GET', `/v1/systems/${id}/bundles`)).body.result).toHaveLength(2)
  })
})
