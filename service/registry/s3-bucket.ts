/**
 * Uploads objects to an S3-compatible bucket with AWS Signature Version 4 (aws4fetch signs,
 * undici sends). Buckets are addressed path-style (`{endpoint}/{bucket}/{key}`), which AWS and
 * the S3-compatible servers (MinIO, Ceph, Google's interop endpoint, s3rver) all accept.
 */
import { AwsV4Signer } from 'aws4fetch'
import { request } from 'undici'

/** Keys of an S3 account: the access key id and the secret access key. */
export interface S3Credentials {
  accessKeyId: string
  secretAccessKey: string
}

/** Where the bucket is. */
export interface S3Location {
  /** Base URL without a trailing slash. */
  endpoint: string
  region: string
  bucket: string
}

/** An upload the bucket refused or that did not reach it; `code` is S3's error code when it sent one. */
export class S3UploadError extends Error {
  constructor(
    message: string,
    readonly status?: number,
    readonly code?: string,
  ) {
    super(message)
    this.name = 'S3UploadError'
  }
}

/** The URL of `key` in the bucket, each segment percent-encoded. */
export function objectUrl(location: S3Location, key: string): string {
  const path = key.split('/').map(encodeURIComponent).join('/')
  return `${location.endpoint}/${encodeURIComponent(location.bucket)}/${path}`
}

/** Uploads to one bucket with one set of keys. */
export class S3Bucket {
  constructor(
    private readonly location: S3Location,
    private readonly credentials: S3Credentials,
    private readonly timeoutMs = 30_000,
  ) {}

  /**
   * PUTs `bytes` at `key`; resolves to the ETag the bucket answered.
   * @throws S3UploadError naming the status and S3's error code, or the network failure.
   */
  async put(key: string, bytes: Uint8Array, contentType: string, signal?: AbortSignal): Promise<string> {
    const url = objectUrl(this.location, key)
    const signer = new AwsV4Signer({
      method: 'PUT',
      url,
      headers: { 'Content-Type': contentType, 'Content-Length': String(bytes.byteLength) },
      body: bytes as unknown as ConstructorParameters<typeof AwsV4Signer>[0]['body'],
      accessKeyId: this.credentials.accessKeyId,
      secretAccessKey: this.credentials.secretAccessKey,
      region: this.location.region,
      service: 's3',
    })
    const signed = await signer.sign()
    const timeout = AbortSignal.timeout(this.timeoutMs)
    let res: Awaited<ReturnType<typeof request>>
    try {
      res = await request(url, {
        method: 'PUT',
        headers: Object.fromEntries(signed.headers.entries()),
        body: Buffer.from(bytes),
        signal: signal ? AbortSignal.any([signal, timeout]) : timeout,
      })
    } catch (err) {
      const reason = (err as { code?: string }).code ?? (err as Error).message
      throw new S3UploadError(`PUT ${url}: ${reason}`)
    }
    const text = await res.body.text()
    if (res.statusCode < 200 || res.statusCode > 299) {
      const code = /<Code>([^<]*)<\/Code>/.exec(text)?.[1]
      const message = /<Message>([^<]*)<\/Message>/.exec(text)?.[1]
      throw new S3UploadError(
        `PUT ${url}: HTTP ${res.statusCode}${code ? ` ${code}` : ''}${message ? `: ${message}` : ''}`,
        res.statusCode,
        code,
      )
    }
    const etag = res.headers.etag
    return Array.isArray(etag) ? etag[0]! : (etag ?? '')
  }
}
