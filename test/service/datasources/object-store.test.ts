/**
 * `cloud/objstore` and `store2/content` against s3rver (an S3-compatible server we did not
 * write, checking SigV4): objects under `path` listed page by page and merged by key, wrong
 * credentials failing with the last good data kept. SQLite and (when configured) PostgreSQL.
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

// s3rver's fixed credentials.
const ACCESS_KEY_ID = 'S3RVER'
const SECRET_ACCESS_KEY = 'S3RVER'

interface Status {
  code: string
  message: string
  items: number | null
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`object-store datasources on ${backend.name}`, () => {
    let t: TestService
    let dir: string
    let server: { close(): Promise<void> }
    let endpoint: string
    const upload = async (key: string, body: string) => {
      const client = new AwsClient({
        accessKeyId: ACCESS_KEY_ID,
        secretAccessKey: SECRET_ACCESS_KEY,
        service: 's3',
        region: 'us-east-1',
      })
      const res = await client.fetch(`${endpoint}/data/${key}`, { method: 'PUT', body })
      expect(res.status).toBe(200)
    }
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
        configureBuckets: [{ name: 'data' }],
      })
      const address = (await s3.run()) as { port: number }
      server = s3
      endpoint = `http://127.0.0.1:${address.port}`
      for (let i = 0; i < 3; i++) await upload(`feeds/users/u${i}.json`, JSON.stringify({ id: i }))
      await upload('feeds/teams.yaml', 'red: [u0]\n')
      await upload('feeds/notes.txt', 'not data')
      await upload('other/x.json', '{"x": 1}')
      t = await startTestService(backend, 'datasources: {scheduler_interval: 1h}')
      await t.json('PUT', '/v1/systems/app', {
        body: { name: 'app', type: 'custom' },
        headers: { 'If-None-Match': '*' },
      })
      // A login secret: its name is the access key id, its value the secret access key (docs/secrets.md).
      const logins = [
        ['s3/keys', ACCESS_KEY_ID, SECRET_ACCESS_KEY],
        ['s3/wrong', 'NOBODY', 'nope'],
        ['s3/no-key-id', '', SECRET_ACCESS_KEY],
      ]
      for (const [id, name, secret] of logins) {
        const res = await t.json('PUT', `/v1/secrets/${id}`, { body: { name, secret } })
        expect(res.status).toBe(200)
      }
    })
    afterAll(async () => {
      await t?.close()
      await server?.close()
      rmSync(dir, { recursive: true, force: true })
    })

    it.each(['cloud/objstore', 'store2/content'])(
      '%s reads the objects under path, merged by key',
      async (category) => {
        const name = category.replace('/', '-')
        const res = await t.json<{ message?: string }>('PUT', `/v1/datasources/systems/app/${name}`, {
          body: {
            category,
            bucket: 'data',
            credentials: 's3/keys',
            endpoint,
            region: 'us-east-1',
            path: 'feeds',
            rate_limit: 50,
          },
        })
        expect(res.status, res.body.message).toBe(200)
        expect(await run(name)).toMatchObject({ code: 'ok', items: 2 })
        expect((await bundleData())[name]).toEqual({
          users: { u0: { id: 0 }, u1: { id: 1 }, u2: { id: 2 } },
          teams: { red: ['u0'] },
        })
      },
    )

    it('fails when the store refuses the credentials and keeps the last good data', async () => {
      await t.json('PUT', '/v1/datasources/systems/app/cloud-objstore', {
        body: {
          category: 'cloud/objstore',
          bucket: 'data',
          credentials: 's3/wrong',
          endpoint,
          path: 'feeds',
        },
      })
      const failed = await run('cloud-objstore')
      expect(failed.code).toBe('error')
      expect(failed.message).toMatch(
        /^auth error: http:\/\/127\.0\.0\.1:\d+\/data answered 403 InvalidAccessKeyId/,
      )
      expect((await bundleData())['cloud-objstore']).toMatchObject({ teams: { red: ['u0'] } })
    })

    it('refuses a login secret without a name (the access key id), naming the secret', async () => {
      await t.json('PUT', '/v1/datasources/systems/app/no-key-id', {
        body: { category: 'cloud/objstore', bucket: 'data', credentials: 's3/no-key-id', endpoint },
      })
      expect(await run('no-key-id')).toMatchObject({
        code: 'error',
        message:
          'secret error: credentials: secret "s3/no-key-id" has an empty name (a login secret\'s name is the access key id and its value the secret access key)',
      })
    })
  })
}
