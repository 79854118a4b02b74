/**
 * The registry's uploads are signed as S3 checks them: a PUT to the relay tests' object server,
 * which recomputes SigV4 (canonical request, string to sign, key chain) independently of
 * aws4fetch, is accepted with the right keys and refused with wrong ones.
 */
import { createHash } from 'node:crypto'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { S3Bucket, S3UploadError } from '../../../service/registry/s3-bucket.js'
import { S3TestServer } from '../../relay/support/s3-server.js'

const credentials = {
  accessKeyId: 'AKIDREGISTRY',
  secretAccessKey: 'registry/secret+key',
  region: 'eu-west-1',
}

describe('S3Bucket', () => {
  let s3: S3TestServer
  beforeEach(async () => {
    s3 = await new S3TestServer(credentials).start()
  })
  afterEach(async () => s3.stop())

  const bucket = (secretAccessKey = credentials.secretAccessKey) =>
    new S3Bucket(
      { endpoint: s3.url, region: credentials.region, bucket: 'bundles' },
      { ...credentials, secretAccessKey },
    )

  it('uploads with a valid SigV4 signature and answers the ETag, keys with spaces and non-ASCII included', async () => {
    const bytes = new Uint8Array([31, 139, 8, 0, 1, 2, 3])
    const etag = await bucket().put('opa/my shop/bündel.tar.gz', bytes, 'application/gzip')
    expect(s3.outcomes).toEqual(['ok'])
    expect(etag).toBe(`"${createHash('md5').update(bytes).digest('hex')}"`)
    expect(
      Buffer.from(s3.objects.get('bundles/opa/my shop/bündel.tar.gz')!.bytes).equals(Buffer.from(bytes)),
    ).toBe(true)
  })

  it('names the status and S3 error code when the signature is refused', async () => {
    const refused = await bucket('wrong')
      .put('a.tar.gz', new Uint8Array([1]), 'application/gzip')
      .catch((e) => e)
    expect(refused).toBeInstanceOf(S3UploadError)
    expect(refused).toMatchObject({ status: 403, code: 'SignatureDoesNotMatch' })
    expect(refused.message).toMatch(
      /^PUT http:\/\/127\.0\.0\.1:\d+\/bundles\/a\.tar\.gz: HTTP 403 SignatureDoesNotMatch/,
    )
  })

  it('names the network failure when nothing listens', async () => {
    await s3.stop()
    const failed = await bucket()
      .put('a.tar.gz', new Uint8Array([1]), 'application/gzip')
      .catch((e) => e)
    expect(failed).toBeInstanceOf(S3UploadError)
    expect(failed.message).toContain('ECONNREFUSED')
    s3 = await new S3TestServer(credentials).start() // for afterEach
  })
})
