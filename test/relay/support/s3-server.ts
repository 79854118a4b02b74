/**
 * A tiny S3-compatible object server for tests: path-style `GET /<bucket>/<key>` with ETag and
 * `If-None-Match`, `PUT /<bucket>/<key>`, and AWS Signature Version 4 checked independently of
 * the client library (canonical request, string to sign, HMAC key chain, as AWS documents them). A request with a
 * missing or wrong signature gets S3's 403 `SignatureDoesNotMatch`.
 *
 * NOTE(relay tests): s3rver (the usual choice) depends on koa 2, busboy 0.3 and winston, is
 * unmaintained since 2021, and adds dozens of packages; this server checks what the relay
 * needs to prove (a correct SigV4 over a conditional GET) in ~100 lines.
 */
import { createHash, createHmac } from 'node:crypto'
import { createServer, type IncomingMessage, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'

export interface S3Credentials {
  accessKeyId: string
  secretAccessKey: string
  region: string
}

/** The running object server. */
export class S3TestServer {
  readonly objects = new Map<string, { bytes: Uint8Array; etag: string }>()
  /** Outcome of every request: 'ok' or the error code sent. */
  readonly outcomes: string[] = []
  private server!: Server
  url = ''

  constructor(private readonly credentials: S3Credentials) {}

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const problem = this.checkSignature(req, Buffer.concat(chunks))
        this.outcomes.push(problem ?? 'ok')
        if (problem) {
          res.writeHead(403, { 'Content-Type': 'application/xml' })
          res.end(`<?xml version="1.0" encoding="UTF-8"?><Error><Code>${problem}</Code></Error>`)
          return
        }
        const name = decodeURIComponent((req.url ?? '').split('?')[0]!.slice(1))
        if (req.method === 'PUT') {
          // Uploads (the service's bundle registry) are stored as S3 stores a simple PUT.
          this.put(name, new Uint8Array(Buffer.concat(chunks)))
          res.writeHead(200, { ETag: this.objects.get(name)!.etag }).end()
          return
        }
        const object = this.objects.get(name)
        if (!object) {
          res
            .writeHead(404, { 'Content-Type': 'application/xml' })
            .end('<Error><Code>NoSuchKey</Code></Error>')
          return
        }
        if (req.headers['if-none-match'] === object.etag) {
          res.writeHead(304, { ETag: object.etag }).end()
          return
        }
        res.writeHead(200, { ETag: object.etag, 'Content-Type': 'application/octet-stream' })
        res.end(Buffer.from(object.bytes))
      })
    })
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
    return this
  }

  /** Stores an object at `bucket/key`; its ETag is the quoted MD5, as S3 gives for simple uploads. */
  put(path: string, bytes: Uint8Array): void {
    this.objects.set(path, { bytes, etag: `"${createHash('md5').update(bytes).digest('hex')}"` })
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private checkSignature(req: IncomingMessage, body: Buffer): string | undefined {
    const auth = req.headers.authorization ?? ''
    const match =
      /^AWS4-HMAC-SHA256 Credential=([^/]+)\/(\d{8})\/([^/]+)\/([^/]+)\/aws4_request, ?SignedHeaders=([^,]+), ?Signature=([0-9a-f]{64})$/.exec(
        auth,
      )
    if (!match) return 'AccessDenied'
    const [, keyId, date, region, service, signedHeaders, signature] = match as unknown as string[]
    if (keyId !== this.credentials.accessKeyId) return 'InvalidAccessKeyId'
    if (region !== this.credentials.region || service !== 's3') return 'AuthorizationHeaderMalformed'
    const amzDate = String(req.headers['x-amz-date'] ?? '')
    if (!amzDate.startsWith(date!)) return 'AccessDenied'
    const skew = Math.abs(
      Date.now() -
        Date.parse(amzDate.replace(/^(\d{4})(\d\d)(\d\d)T(\d\d)(\d\d)(\d\d)Z$/, '$1-$2-$3T$4:$5:$6Z')),
    )
    if (!(skew < 15 * 60 * 1000)) return 'RequestTimeTooSkewed'
    const names = signedHeaders!.split(';')
    if (!names.includes('host')) return 'AccessDenied'
    const [path, query = ''] = (req.url ?? '/').split('?')
    const canonicalQuery = query
      .split('&')
      .filter(Boolean)
      .map((pair) => pair.split('='))
      .sort(([a], [b]) => (a! < b! ? -1 : 1))
      .map(([k, v = '']) => `${k}=${v}`)
      .join('&')
    const headerValue = (name: string) => {
      const value = req.headers[name]
      return (Array.isArray(value) ? value.join(',') : (value ?? '')).trim().replace(/\s+/g, ' ')
    }
    const payloadHash = headerValue('x-amz-content-sha256') || createHash('sha256').update(body).digest('hex')
    const canonicalRequest = [
      req.method,
      path,
      canonicalQuery,
      `${names.map((n) => `${n}:${headerValue(n)}`).join('\n')}\n`,
      signedHeaders,
      payloadHash,
    ].join('\n')
    const scope = `${date}/${region}/${service}/aws4_request`
    const stringToSign = [
      'AWS4-HMAC-SHA256',
      amzDate,
      scope,
      createHash('sha256').update(canonicalRequest).digest('hex'),
    ].join('\n')
    const hmac = (key: Buffer | string, data: string) => createHmac('sha256', key).update(data).digest()
    const signingKey = hmac(
      hmac(hmac(hmac(`AWS4${this.credentials.secretAccessKey}`, date!), region!), service!),
      'aws4_request',
    )
    const expected = createHmac('sha256', signingKey).update(stringToSign).digest('hex')
    return expected === signature ? undefined : 'SignatureDoesNotMatch'
  }
}
