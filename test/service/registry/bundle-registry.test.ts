/**
 * A system's bundle registry against s3rver (a real S3-compatible server): configuration checks
 * at POST/PUT, every new bundle and the discovery bundle uploaded with the bucket's ETag
 * recorded, the version list and downloads, pruning, manual deployment and rollback, and a
 * failing upload shown in the system's status while agents still get bundles directly.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readBundle } from '../../../core/bundle/index.js'
import { eventually, metricValue } from '../../relay/helpers.js'
import { BACKENDS } from '../../store/backends.js'
import { S3RVER_ACCESS_KEY, S3RVER_SECRET_KEY, S3rverBucketServer } from '../../support/s3rver-bucket.js'
import { startTestService, type TestService } from '../harness.js'

const BUCKET = 'regent-bundles'
const RETRIES = `
bundle_registry: { upload_retries: 2, retry_min_ms: 20, retry_max_ms: 50, upload_timeout_ms: 2000 }
`

type Version = {
  bundle: string
  version: number
  revision: string
  active: boolean
  deployed_at: string | null
  upload: {
    state: string
    etag: string | null
    object: string | null
    error: string | null
    attempts: number
  }
}

const policy = (rule: string) => ({ modules: { 'main.rego': `package main\n\nallow := ${rule}\n` } })

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`bundle registry on ${backend.name}`, () => {
    let t: TestService
    let s3: S3rverBucketServer
    beforeAll(async () => {
      s3 = await new S3rverBucketServer([BUCKET]).start()
      t = await startTestService(backend, RETRIES)
      const secret = await t.json('PUT', '/v1/secrets/registry/keys', {
        body: { name: S3RVER_ACCESS_KEY, secret: S3RVER_SECRET_KEY },
      })
      expect(secret.status).toBe(200)
    })
    afterAll(async () => {
      await t?.close()
      await s3?.cleanup()
    })

    const registry = (extra: Record<string, unknown> = {}, s3Extra: Record<string, unknown> = {}) => ({
      distribution_s3: {
        region: 'us-east-1',
        bucket: BUCKET,
        endpoint: s3.url,
        access_keys: 'registry/keys',
        policy_path: 'opa/{system_name}/{system_id}/bundle.tar.gz',
        discovery_path: 'opa/{system_name}/discovery.tar.gz',
        ...s3Extra,
      },
      ...extra,
    })

    async function createSystem(name: string, bundle_registry: unknown): Promise<string> {
      const res = await t.json<{ result: { id: string } }>('POST', '/v1/systems', {
        body: { name, type: 'custom', bundle_registry },
      })
      expect(res.status, JSON.stringify(res.body)).toBe(200)
      return res.body.result.id
    }

    async function versions(id: string, query = ''): Promise<Version[]> {
      const res = await t.json<{ result: Version[] }>('GET', `/v1/systems/${id}/bundles${query}`)
      expect(res.status).toBe(200)
      return res.body.result
    }

    async function uploaded(id: string, bundle: string, version: number): Promise<Version> {
      let found: Version | undefined
      await eventually(
        async () => {
          found = (await versions(id)).find((v) => v.bundle === bundle && v.version === version)
          return found?.upload.state === 'uploaded'
        },
        10_000,
        `${bundle} version ${version} uploaded`,
      )
      return found!
    }

    it('refuses registry configs naming unknown secrets, bad buckets, unknown variables or unsupported fields', async () => {
      const cases: Array<[unknown, string]> = [
        [
          registry({}, { access_keys: 'no/such/secret' }),
          'bundle_registry.distribution_s3.access_keys: secret "no/such/secret" does not exist',
        ],
        [
          registry({}, { bucket: 'Bad_Bucket' }),
          'bundle_registry.distribution_s3.bucket: expected an S3 bucket name',
        ],
        [
          registry({}, { policy_path: 'x/{tenant}.tar.gz' }),
          'bundle_registry.distribution_s3.policy_path: unknown template variable {tenant}',
        ],
        [
          registry({}, { discovery_path: '/abs/../x' }),
          'bundle_registry.distribution_s3.discovery_path: an object key does not start with "/"',
        ],
        [
          registry({}, { endpoint: 'ftp://host' }),
          'bundle_registry.distribution_s3.endpoint: expected an http(s) URL',
        ],
        [
          registry({}, { role_arn: 'arn:aws:iam::1:role/x' }),
          'bundle_registry.distribution_s3.role_arn: not supported',
        ],
        [
          registry({ max_bundles: 2, max_deployed_bundles: 5 }),
          'bundle_registry.max_deployed_bundles: must not exceed max_bundles',
        ],
        [registry({ max_bundles: 'ten' }), 'bundle_registry.max_bundles:'],
        [{ max_bundles: 3 }, 'bundle_registry.distribution_s3:'],
      ]
      for (const [bundle_registry, message] of cases) {
        const res = await t.json<{ message: string }>('POST', '/v1/systems', {
          body: { name: 'refused', type: 'custom', bundle_registry },
        })
        expect(res.status, message).toBe(400)
        expect(res.body.message).toContain(message)
      }
      // PUT checks the same, and nothing is stored.
      const id = await createSystem('plain', undefined)
      const put = await t.json<{ message: string }>('PUT', `/v1/systems/${id}`, {
        body: { bundle_registry: registry({}, { access_keys: 'missing' }) },
      })
      expect(put.status).toBe(400)
      expect(put.body.message).toContain(
        'bundle_registry.distribution_s3.access_keys: secret "missing" does not exist',
      )
      const after = await t.json<{ result: Record<string, unknown> }>('GET', `/v1/systems/${id}`)
      expect(after.body.result.bundle_registry).toBeUndefined()
      expect((await t.json('GET', '/v1/systems')).body.result).not.toContainEqual(
        expect.objectContaining({ name: 'refused' }),
      )
    })

    it('uploads each new policy bundle and the discovery bundle, records the ETag, and lists versions newest first', async () => {
      const id = await createSystem('shop', registry())
      expect((await t.call('PUT', `/v1/policies/systems/${id}/main`, { body: policy('true') })).status).toBe(
        200,
      )
      // Version 1 is the empty system's bundle, version 2 has the policy.
      const v2 = await uploaded(id, 'policy', 2)
      const key = `opa/shop/${id}/bundle.tar.gz`
      const object = await s3.get(BUCKET, key)
      expect(object).toBeDefined()
      expect(v2.upload.etag).toBe(object!.etag)
      expect(v2.upload.object).toBe(`${s3.url}/${BUCKET}/${key}`)
      expect(v2.active).toBe(true)
      // The bucket holds exactly what agents get from the service.
      const direct = new Uint8Array(await (await t.call('GET', `/v1/bundles/systems/${id}`)).arrayBuffer())
      expect(Buffer.from(object!.bytes).equals(Buffer.from(direct))).toBe(true)
      expect((await readBundle(object!.bytes)).manifest.revision).toBe(v2.revision)
      const discovery = await uploaded(id, 'discovery', 1)
      expect((await s3.get(BUCKET, 'opa/shop/discovery.tar.gz'))?.etag).toBe(discovery.upload.etag)

      const list = await versions(id, '?limit=10')
      expect(list.filter((v) => v.bundle === 'policy').map((v) => v.version)).toEqual([2, 1])
      expect(list.map((v) => v.version)).toEqual([...list.map((v) => v.version)].sort((a, b) => b - a))
      expect((await versions(id, '?version=1')).every((v) => v.version <= 1)).toBe(true)

      const details = await t.json<{ result: Version }>('GET', `/v1/systems/${id}/bundles/policy/2/details`)
      expect(details.body.result).toMatchObject({ version: 2, revision: v2.revision, active: true })
      const download = await t.call('GET', `/v1/systems/${id}/bundles/policy/2/bundle`)
      expect(download.status).toBe(200)
      expect(Buffer.from(await download.arrayBuffer()).equals(Buffer.from(direct))).toBe(true)
      for (const [path, status] of [
        [`/v1/systems/${id}/bundles/policy/99/details`, 404],
        [`/v1/systems/${id}/bundles/policy/zero/details`, 400],
        [`/v1/systems/${id}/bundles/other/1/bundle`, 400],
        [`/v1/systems/${id}/bundles?version=-1`, 400],
        [`/v1/systems/${id}/bundles?past=maybe`, 400],
        ['/v1/systems/nosuch/bundles', 404],
      ] as const) {
        expect((await t.call('GET', path)).status, path).toBe(status)
      }

      const status = await t.json<{
        result: { bundle_registry_status: Record<string, { state: string }>; errors: object }
      }>('GET', `/v1/systems/${id}`)
      expect(status.body.result.bundle_registry_status.policy?.state).toBe('uploaded')
      expect(status.body.result.errors).toEqual({})
      // The secret the registry names cannot be deleted under it.
      expect((await t.call('DELETE', '/v1/secrets/registry/keys')).status).toBe(409)
    })

    it('keeps at most max_bundles versions, the active one always', async () => {
      const id = await createSystem('pruned', registry({ max_bundles: 2, max_deployed_bundles: 2 }))
      for (const n of [1, 2, 3]) {
        expect(
          (await t.call('PUT', `/v1/policies/systems/${id}/main`, { body: policy(`${n}`) })).status,
        ).toBe(200)
      }
      await uploaded(id, 'policy', 4)
      expect((await versions(id)).filter((v) => v.bundle === 'policy').map((v) => v.version)).toEqual([4, 3])
      expect((await t.call('GET', `/v1/systems/${id}/bundles/policy/1/bundle`)).status).toBe(404)
    })

    it('with manual_deployment uploads a build only when deployed, and rolls back only with force', async () => {
      const id = await createSystem(
        'manual',
        registry({ manual_deployment: true }, { policy_path: 'manual/{system_id}.tar.gz' }),
      )
      const key = `manual/${id}.tar.gz`
      expect((await t.call('PUT', `/v1/policies/systems/${id}/main`, { body: policy('1') })).status).toBe(200)
      const built = await versions(id)
      expect(built.filter((v) => v.bundle === 'policy').map((v) => [v.version, v.upload.state])).toEqual([
        [2, 'built'],
        [1, 'built'],
      ])
      expect(await s3.get(BUCKET, key)).toBeUndefined()
      const before = await t.json<{ result: { primary: number | null; latest_built: number } }>(
        'GET',
        `/v1/systems/${id}/bundle-deploy`,
      )
      expect(before.body.result).toMatchObject({ primary: null, latest_built: 2, manual_deployment: true })

      const deploy = await t.json('PUT', `/v1/systems/${id}/bundle-deploy`, { body: { primary: 2 } })
      expect(deploy.status).toBe(200)
      const v2 = await uploaded(id, 'policy', 2)
      expect((await s3.get(BUCKET, key))?.etag).toBe(v2.upload.etag)

      const older = await t.json<{ message: string }>('PUT', `/v1/systems/${id}/bundle-deploy`, {
        body: { primary: 1 },
      })
      expect(older.status).toBe(409)
      expect(older.body.message).toContain('primary: version 1 is older')
      const same = await t.json('PUT', `/v1/systems/${id}/bundle-deploy`, { body: { primary: 2 } })
      expect(same.status).toBe(409)
      for (const body of [
        { primary: 'two' },
        { primary: 0 },
        { primary: 2, force: 'yes' },
        { primary: 2, extra: 1 },
        {},
      ]) {
        const bad = await t.json<{ message: string }>('PUT', `/v1/systems/${id}/bundle-deploy`, { body })
        expect(bad.status, JSON.stringify(body)).toBe(400)
      }
      expect((await t.call('PUT', `/v1/systems/${id}/bundle-deploy`, { body: { primary: 42 } })).status).toBe(
        404,
      )

      const rollback = await t.json('PUT', `/v1/systems/${id}/bundle-deploy`, {
        body: { primary: 1, force: true },
      })
      expect(rollback.status).toBe(200)
      const v1 = await uploaded(id, 'policy', 1)
      const v1Bytes = await t.call('GET', `/v1/systems/${id}/bundles/policy/1/bundle`)
      const object = await s3.get(BUCKET, key)
      expect(Buffer.from(object!.bytes).equals(Buffer.from(await v1Bytes.arrayBuffer()))).toBe(true)
      expect(v1.active).toBe(true)
      expect(
        (await versions(id, '?past=true'))
          .filter((v) => v.bundle === 'policy')
          .map((v) => v.version)
          .sort(),
      ).toEqual([1, 2])
    })

    it('keeps a rollback in place when the same content is rebuilt, until new content is built', async () => {
      const id = await createSystem('rolled-back', registry({}, { policy_path: 'rb/{system_id}.tar.gz' }))
      expect((await t.call('PUT', `/v1/policies/systems/${id}/main`, { body: policy('1') })).status).toBe(200)
      await uploaded(id, 'policy', 2)
      expect(
        (await t.call('PUT', `/v1/systems/${id}/bundle-deploy`, { body: { primary: 1, force: true } }))
          .status,
      ).toBe(200)
      await uploaded(id, 'policy', 1)
      // A config change rebuilds the same content: version 1 stays active, no version is added.
      expect((await t.call('PUT', `/v1/systems/${id}`, { body: { description: 'changed' } })).status).toBe(
        200,
      )
      const deploy = await t.json<{ result: { primary: number; latest_built: number } }>(
        'GET',
        `/v1/systems/${id}/bundle-deploy`,
      )
      expect(deploy.body.result).toMatchObject({ primary: 1, latest_built: 2 })
      // New content is deployed as usual.
      expect((await t.call('PUT', `/v1/policies/systems/${id}/main`, { body: policy('2') })).status).toBe(200)
      const v3 = await uploaded(id, 'policy', 3)
      expect(v3.active).toBe(true)
      expect((await s3.get(BUCKET, `rb/${id}.tar.gz`))?.etag).toBe(v3.upload.etag)
    })

    it('shows a failing upload in the system status and keeps serving bundles directly', async () => {
      // A port nothing listens on: the upload fails, is retried, then marked failed.
      const closed = new S3rverBucketServer([BUCKET])
      await closed.start()
      const deadUrl = closed.url
      await closed.cleanup()
      const id = await createSystem('unreachable', registry({}, { endpoint: deadUrl }))
      await eventually(
        async () => (await versions(id)).some((v) => v.bundle === 'policy' && v.upload.state === 'failed'),
        10_000,
        'upload marked failed',
      )
      const view = await t.json<{
        result: {
          errors: { bundle_registry?: { errors: Array<{ code: string; message: string }> } }
          status: string
        }
      }>('GET', `/v1/systems/${id}`)
      expect(view.body.result.status).toBe('Ready')
      expect(view.body.result.errors.bundle_registry?.errors[0]).toMatchObject({
        code: 'BundleRegistryUploadFailed',
      })
      expect(view.body.result.errors.bundle_registry?.errors[0]?.message).toMatch(
        /policy bundle version 1: PUT .*ECONNREFUSED/,
      )
      const failed = (await versions(id)).find((v) => v.bundle === 'policy')!
      expect(failed.upload.attempts).toBe(3)
      const metrics = await (await t.call('GET', '/metrics', { token: null })).text()
      // The policy bundle's line: the discovery bundle's upload to the same dead endpoint may
      // still be retrying, and its line can come first.
      expect(
        metricValue(metrics, 'regent_service_registry_uploads_total', 'kind="policy",outcome="failed"'),
      ).toBeGreaterThanOrEqual(3)
      expect(
        metricValue(metrics, 'regent_service_registry_uploads_total', 'outcome="uploaded"'),
      ).toBeGreaterThan(0)
      expect((await t.call('GET', `/v1/bundles/systems/${id}`)).status).toBe(200)

      // Pointing the registry at a working endpoint uploads the active version again.
      const fixed = await t.json('PUT', `/v1/systems/${id}`, { body: { bundle_registry: registry() } })
      expect(fixed.status).toBe(200)
      await uploaded(id, 'policy', 1)
      expect(await s3.get(BUCKET, `opa/unreachable/${id}/bundle.tar.gz`)).toBeDefined()
      const healthy = await t.json<{ result: { errors: object } }>('GET', `/v1/systems/${id}`)
      expect(healthy.body.result.errors).toEqual({})
    })

    it('names the refusal when the bucket rejects the keys', async () => {
      expect(
        (await t.call('PUT', '/v1/secrets/registry/wrong', { body: { name: 'NOT-A-KEY', secret: 'x' } }))
          .status,
      ).toBe(200)
      const id = await createSystem('refused-keys', registry({}, { access_keys: 'registry/wrong' }))
      await eventually(
        async () =>
          (await versions(id)).some(
            (v) => v.upload.state === 'failed' && /InvalidAccessKeyId/.test(v.upload.error ?? ''),
          ),
        10_000,
        'refusal recorded',
      )
    })

    it('gives up at once on a keys secret without a name (the access key id), naming the secret', async () => {
      expect(
        (await t.call('PUT', '/v1/secrets/registry/no-key-id', { body: { name: '', secret: 'x' } })).status,
      ).toBe(200)
      const id = await createSystem('no-key-id', registry({}, { access_keys: 'registry/no-key-id' }))
      const expected =
        'bundle_registry.distribution_s3.access_keys: secret "registry/no-key-id" has an empty name (a login secret\'s name is the access key id and its value the secret access key)'
      await eventually(
        async () =>
          (await versions(id)).some((v) => v.upload.state === 'failed' && v.upload.error === expected),
        10_000,
        'refusal recorded',
      )
    })
  })
}
