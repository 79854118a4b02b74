/**
 * s3rver (an S3-compatible server from npm, not ours) on 127.0.0.1 over a temp folder, with
 * buckets created at start, for tests that upload and read objects through a real S3 protocol
 * implementation.
 *
 * NOTE(tests): s3rver accepts only its built-in access key id `S3RVER` (secret `S3RVER`) and
 * answers any other with `InvalidAccessKeyId`; it parses SigV4 headers but does not recompute
 * them, so signature correctness is proven against the relay's strict test server instead
 * (test/relay/support/s3-server.ts, in test/service/registry/s3-bucket.test.ts).
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createRequire } from 'node:module'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { AwsClient } from 'aws4fetch'

export const S3RVER_ACCESS_KEY = 'S3RVER'
export const S3RVER_SECRET_KEY = 'S3RVER'

interface S3rverInstance {
  run(): Promise<AddressInfo>
  close(): Promise<void>
}
type S3rverClass = new (options: Record<string, unknown>) => S3rverInstance

const S3rver = createRequire(import.meta.url)('s3rver') as S3rverClass

/** A running s3rver. */
export class S3rverBucketServer {
  url = ''
  private server?: S3rverInstance
  private readonly dir = mkdtempSync(join(tmpdir(), 'regent-s3rver-'))

  constructor(private readonly buckets: string[]) {}

  async start(port = 0): Promise<this> {
    this.server = new S3rver({
      address: '127.0.0.1',
      port,
      silent: true,
      directory: this.dir,
      vhostBuckets: false,
      configureBuckets: this.buckets.map((name) => ({ name })),
    })
    const address = await this.server.run()
    this.url = `http://127.0.0.1:${address.port}`
    return this
  }

  /** Stops serving; the objects stay on disk for a restart with `start(samePort)`. */
  async stop(): Promise<void> {
    await this.server?.close()
    this.server = undefined
  }

  /** Stops and removes the folder. */
  async cleanup(): Promise<void> {
    await this.stop()
    rmSync(this.dir, { recursive: true, force: true })
  }

  /** An object's bytes and ETag, read signed with s3rver's key (undefined: 404). */
  async get(bucket: string, key: string): Promise<{ bytes: Uint8Array; etag: string } | undefined> {
    const res = await client().fetch(`${this.url}/${bucket}/${key}`)
    if (res.status === 404) {
      await res.arrayBuffer()
      return undefined
    }
    if (!res.ok) throw new Error(`GET ${bucket}/${key}: HTTP ${res.status} ${await res.text()}`)
    return { bytes: new Uint8Array(await res.arrayBuffer()), etag: res.headers.get('etag') ?? '' }
  }

  /** Writes an object directly (as another publisher would), signed with s3rver's key. */
  async put(bucket: string, key: string, bytes: Uint8Array): Promise<void> {
    const res = await client().fetch(`${this.url}/${bucket}/${key}`, { method: 'PUT', body: bytes })
    if (!res.ok) throw new Error(`PUT ${bucket}/${key}: HTTP ${res.status} ${await res.text()}`)
    await res.arrayBuffer()
  }
}

function client(): AwsClient {
  return new AwsClient({
    accessKeyId: S3RVER_ACCESS_KEY,
    secretAccessKey: S3RVER_SECRET_KEY,
    region: 'us-east-1',
    service: 's3',
  })
}
