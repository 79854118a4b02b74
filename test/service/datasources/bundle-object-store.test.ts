/**
 * `bundle/objstore` and `store2/bundle` against s3rver (an S3-compatible server we did not write,
 * checking SigV4): a `.tar.gz` bundle object's data lands at the datasource's place, and a
 * tampered, oversized or path-escaping bundle, a missing object and wrong credentials fail the run
 * with a clear status while the last good data stays. SQLite and (when configured) PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AwsClient } from 'aws4fetch'
// @ts-expect-error s3rver ships no types
import S3rver from 's3rver'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readBundle } from '../../../core/bundle/index.js'
import { BACKENDS } from '../../store/backends.js'
import { startTestService, type TestService } from '../harness.js'
import { goodBundle, rawTarball, tamperedBundle } from './bundle-tarballs.js'

// s3rver's fixed credentials.
const ACCESS_KEY_ID = 'S3RVER'
const SECRET_ACCESS_KEY = 'S3RVER'
const MAX_BYTES = 64 * 1024

interface Status {
  code: string
  message: string
  items: number | null
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`bundle object-store datasources on ${backend.name}`, () => {
    let t: TestService
    let dir: string
    let server: { close(): Promise<void> }
    let endpoint: string
    const upload = async (key: string, body: Uint8Array) => {
      const client = new AwsClient({
        accessKeyId: ACCESS_KEY_ID,
        secretAccessKey: SECRET_ACCESS_KEY,
        service: 's3',
        region: 'us-east-1',
      })
      const res = await client.fetch(`${endpoint}/bundles/${key}`, { method: 'PUT', body })
      expect(res.status).toBe(200)
    }
    const put = (name: string, config: Record<string, unknown>) =>
      t.json<{ result: Record<string, unknown>; message?: string }>(
        'PUT',
        `/v1/datasources/systems/app/${name}`,
        { body: { bucket: 'bundles', credentials: 's3/keys', endpoint, ...config } },
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

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'regent-s3rver-'))
      const s3 = new S3rver({
        port: 0,
        address: '127.0.0.1',
        silent: true,
        directory: dir,
        configureBuckets: [{ name: 'bundles' }],
      })
      const address = (await s3.run()) as { port: number }
      server = s3
      endpoint = `http://127.0.0.1:${address.port}`
      await upload('prod/app.tar.gz', await goodBundle({ users: { alice: { role: 'admin' } } }))
      t = await startTestService(
        backend,
        `datasources: {scheduler_interval: 1h, max_bytes_per_run: ${MAX_BYTES}}`,
      )
      await t.json('PUT', '/v1/systems/app', {
        body: { name: 'app', type: 'custom' },
        headers: { 'If-None-Match': '*' },
      })
      for (const [id, name, secret] of [
        ['s3/keys', ACCESS_KEY_ID, SECRET_ACCESS_KEY],
        ['s3/wrong', 'NOBODY', 'nope'],
      ]) {
        const res = await t.json('PUT', `/v1/secrets/${id}`, { body: { name, secret } })
        expect(res.status).toBe(200)
      }
    })
    afterAll(async () => {
      await t?.close()
      await server?.close()
      rmSync(dir, { recursive: true, force: true })
    })

    it.each(['bundle/objstore', 'store2/bundle'])(
      "%s puts the bundle object's data at the datasource's place",
      async (category) => {
        const name = category.replace('/', '-')
        const res = await put(name, { category, path: 'prod/app.tar.gz', rate_limit: 50 })
        expect(res.status, res.body.message).toBe(200)
        expect(res.body.result).toMatchObject({ polling_interval: '30s', rate_limit: 50 })
        expect(await run(name)).toMatchObject({ code: 'ok', items: 1 })
        expect((await bundleData())[name]).toEqual({ users: { alice: { role: 'admin' } } })
      },
    )

    it('requires path at PUT, naming it', async () => {
      const res = await put('no-path', { category: 'bundle/objstore' })
      expect(res.status).toBe(400)
      expect(res.body.message).toContain('path')
    })

    it.each([
      [
        'a tampered bundle',
        () => tamperedBundle(),
        /^bundle error: prod\/app\.tar\.gz: bundle_archive_invalid: /,
      ],
      [
        'an entry escaping the root',
        () => rawTarball({ '/../data.json': '{"users": {"mallory": {}}}' }),
        /^bundle error: prod\/app\.tar\.gz: bundle_entry_unsafe: /,
      ],
      [
        'a bundle inflating past the byte limit',
        () => rawTarball({ 'data.json': JSON.stringify({ pad: 'x'.repeat(2 * MAX_BYTES) }) }),
        /^bundle error: prod\/app\.tar\.gz: bundle_size_limit: /,
      ],
      [
        'an object larger than the byte limit',
        async () => Buffer.from(Array.from({ length: 2 * MAX_BYTES }, (_, i) => (i * 7919) % 251)),
        new RegExp(
          `^size limit: http://127\\.0\\.0\\.1:\\d+/bundles/prod/app\\.tar\\.gz is larger than ${MAX_BYTES} bytes$`,
        ),
      ],
    ])('refuses %s and keeps the last good data', async (_what, object, message) => {
      await upload('prod/app.tar.gz', await object())
      const failed = await run('bundle-objstore')
      expect(failed.code).toBe('error')
      expect(failed.message).toMatch(message)
      expect((await bundleData())['bundle-objstore']).toEqual({ users: { alice: { role: 'admin' } } })
    })

    it('fails on a missing object or refused credentials, naming the status', async () => {
      await put('missing', { category: 'store2/bundle', path: 'prod/nosuch.tar.gz' })
      expect((await run('missing')).message).toMatch(
        /^http error: http:\/\/127\.0\.0\.1:\d+\/bundles\/prod\/nosuch\.tar\.gz answered 404 NoSuchKey$/,
      )
      await put('bundle-objstore', {
        category: 'bundle/objstore',
        path: 'prod/app.tar.gz',
        credentials: 's3/wrong',
      })
      expect((await run('bundle-objstore')).message).toMatch(
        /^auth error: .* answered 403 InvalidAccessKeyId$/,
      )
      expect((await bundleData())['bundle-objstore']).toEqual({ users: { alice: { role: 'admin' } } })
    })
  })
}
