/**
 * The service client's own HTTP adapter (node:http/node:https, no undici): keep-alive reuse,
 * header and body timeouts mapped to the callers' 'timeout', aborts, capped text, and HTTPS
 * with a throwaway CA and a client certificate (mTLS), as `tls.ca_cert` and
 * `credentials.client_tls` configure it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TLSSocket } from 'node:tls'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { fetchBundle, UpstreamError } from '../../../plugins/bundle/fetch-bundle.js'
import { serviceSchema } from '../../../plugins/config.js'
import { postBatch, serviceUploadTarget } from '../../../plugins/logs/upload.js'
import { BodyTimeoutError, HeadersTimeoutError } from '../../../plugins/rest/http-request.js'
import { ServiceClient } from '../../../plugins/rest/service-client.js'
import { createTestPki, type TestPki } from '../../support/test-pki.js'

type Handler = (req: IncomingMessage, res: ServerResponse) => void

async function listen(server: Server): Promise<string> {
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  return `127.0.0.1:${(server.address() as AddressInfo).port}`
}

describe('service client over node:http', () => {
  let handler: Handler = (_req, res) => res.end('ok')
  const server = createServer((req, res) => handler(req, res))
  let connections = 0
  server.on('connection', () => connections++)
  let url = ''
  const clients: ServiceClient[] = []
  const client = (extra: Record<string, unknown> = {}) => {
    const c = new ServiceClient('up', serviceSchema.parse({ url, ...extra }))
    clients.push(c)
    return c
  }

  beforeAll(async () => {
    url = `http://${await listen(server)}/base`
  })
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close()
  })
  afterAll(() => {
    server.closeAllConnections()
    server.close()
  })

  it('sends method, resource, headers and body, and reuses the connection', async () => {
    const seen: Array<{ method?: string; url?: string; ua?: string; type?: string; body: string }> = []
    handler = (req, res) => {
      let body = ''
      req.on('data', (c) => (body += c))
      req.on('end', () => {
        seen.push({
          method: req.method,
          url: req.url,
          ua: req.headers['user-agent'],
          type: req.headers['content-type'],
          body,
        })
        res.setHeader('etag', '"e1"')
        res.end('answer')
      })
    }
    const c = client()
    const before = connections
    const first = await c.send({
      method: 'POST',
      resource: '/logs/',
      headers: { 'content-type': 'text/plain' },
      body: 'hello',
    })
    expect(first.statusCode).toBe(200)
    expect(first.headers.etag).toBe('"e1"')
    expect(await first.body.text()).toBe('answer')
    const second = await c.send({ method: 'GET', resource: 'x' })
    await second.body.dump()
    expect(seen).toEqual([
      { method: 'POST', url: '/base/logs', ua: 'regent-relay', type: 'text/plain', body: 'hello' },
      { method: 'GET', url: '/base/x', ua: 'regent-relay', type: undefined, body: '' },
    ])
    expect(connections - before).toBe(1)
  })

  it('iterates a body and caps text()', async () => {
    handler = (_req, res) => res.end('x'.repeat(100_000))
    const c = client()
    let total = 0
    for await (const chunk of (await c.send({ method: 'GET', resource: 'a' })).body) total += chunk.byteLength
    expect(total).toBe(100_000)
    expect(await (await c.send({ method: 'GET', resource: 'a' })).body.text(10)).toBe('x'.repeat(10))
  })

  it('a silent upstream is a header timeout; fetchBundle reports it as timeout', async () => {
    handler = () => {} // never answers
    const c = client({ response_header_timeout_seconds: 1 })
    await expect(c.send({ method: 'GET', resource: 'a', headersTimeoutMs: 50 })).rejects.toBeInstanceOf(
      HeadersTimeoutError,
    )
    const failed = await fetchBundle(c, 'bundles/b', { maxBytes: 1000 }).catch((e: unknown) => e)
    expect(failed).toBeInstanceOf(UpstreamError)
    expect((failed as UpstreamError).code).toBe('timeout')
  })

  it('a body that stalls after the headers is a body timeout', async () => {
    handler = (_req, res) => {
      res.writeHead(200, { 'content-length': '10' })
      res.write('abc')
    }
    const c = client()
    const res = await c.send({ method: 'GET', resource: 'a', bodyTimeoutMs: 50 })
    await expect(res.body.text()).rejects.toBeInstanceOf(BodyTimeoutError)
  })

  it('the log upload maps a header timeout to status timeout', async () => {
    handler = () => {}
    const target = serviceUploadTarget(client(), 'logs')
    // The upload's own deadline is far away: the adapter's header timeout is what fires.
    const send = target.send!
    target.send = (r) => send({ ...r, timeoutMs: 50 })
    const outcome = await postBatch(target, Buffer.from('x'), 60_000, new AbortController().signal)
    expect(outcome).toMatchObject({ kind: 'retry', status: 'timeout' })
  })

  it('an abort ends the request with the signal reason', async () => {
    handler = () => {}
    const abort = new AbortController()
    const pending = client().send({ method: 'GET', resource: 'a', signal: abort.signal })
    const reason = new Error('stopping')
    abort.abort(reason)
    await expect(pending).rejects.toBe(reason)
  })

  it('a refused connection is a network error', async () => {
    const dead = new ServiceClient('up', serviceSchema.parse({ url: 'http://127.0.0.1:9' }))
    clients.push(dead)
    const failed = await fetchBundle(dead, 'b', { maxBytes: 10 }).catch((e: unknown) => e)
    expect((failed as UpstreamError).code).toBe('network_error')
    expect((failed as UpstreamError).message).toContain('ECONNREFUSED')
  })
})

describe('service client over node:https with a throwaway CA and a client certificate', () => {
  let pki: TestPki
  let dir: string
  let url: string
  let server: ReturnType<typeof createHttpsServer>
  const clients: ServiceClient[] = []

  beforeAll(async () => {
    pki = createTestPki()
    dir = mkdtempSync(join(tmpdir(), 'regent-sc-'))
    for (const [name, text] of Object.entries({
      'ca.pem': pki.ca,
      'client.pem': pki.clientCert,
      'client.key': pki.clientKey,
    })) {
      writeFileSync(join(dir, name), text)
    }
    // mTLS: the server requires a client certificate signed by the CA.
    const tls = {
      key: pki.serverKey,
      cert: pki.serverCert,
      ca: pki.ca,
      requestCert: true,
      rejectUnauthorized: true,
    }
    server = createHttpsServer(tls, (req, res) => {
      res.end((req.socket as TLSSocket).authorized ? 'client verified' : 'anonymous')
    })
    url = `https://${await listen(server as unknown as Server)}`
  })
  afterEach(async () => {
    for (const c of clients.splice(0)) await c.close()
  })
  afterAll(() => {
    server.closeAllConnections()
    server.close()
    pki.cleanup()
    rmSync(dir, { recursive: true, force: true })
  })

  it('presents the client certificate and trusts the configured CA', async () => {
    const c = new ServiceClient(
      'up',
      serviceSchema.parse({
        url,
        tls: { ca_cert: join(dir, 'ca.pem') },
        credentials: { client_tls: { cert: join(dir, 'client.pem'), private_key: join(dir, 'client.key') } },
      }),
    )
    clients.push(c)
    const res = await c.send({ method: 'GET', resource: 'a' })
    expect(res.statusCode).toBe(200)
    expect(await res.body.text()).toBe('client verified')
  })

  it('without the CA the server is not trusted (network error, not a timeout)', async () => {
    const c = new ServiceClient('up', serviceSchema.parse({ url }))
    clients.push(c)
    const failed = await fetchBundle(c, 'b', { maxBytes: 10 }).catch((e: unknown) => e)
    expect((failed as UpstreamError).code).toBe('network_error')
  })

  it('without a client certificate the handshake is refused', async () => {
    const c = new ServiceClient('up', serviceSchema.parse({ url, tls: { ca_cert: join(dir, 'ca.pem') } }))
    clients.push(c)
    await expect(c.send({ method: 'GET', resource: 'a' })).rejects.toThrow()
  })

  it('allow_insecure_tls skips verification', async () => {
    const c = new ServiceClient(
      'up',
      serviceSchema.parse({
        url,
        allow_insecure_tls: true,
        credentials: { client_tls: { cert: join(dir, 'client.pem'), private_key: join(dir, 'client.key') } },
      }),
    )
    clients.push(c)
    const res = await c.send({ method: 'GET', resource: 'a' })
    expect(res.statusCode).toBe(200)
    await res.body.dump()
  })
})
