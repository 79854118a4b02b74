import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync } from 'node:fs'
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { InterQueryCache } from '../../../../core/rego/builtins/context.js'
import { toJSONText, type Value } from '../../../../core/rego/values/index.js'
import { callAsync, testContext } from './helpers.js'

let server: Server
let base = ''
let hits = 0

function handler(req: IncomingMessage, res: ServerResponse) {
  hits++
  let body = ''
  req.on('data', (c) => {
    body += c
  })
  req.on('end', () => {
    const url = new URL(req.url ?? '/', 'http://x')
    if (url.pathname === '/json') {
      res.writeHead(200, { 'Content-Type': 'application/json', 'X-Echo': req.headers['x-token'] ?? '' })
      res.end(
        JSON.stringify({ method: req.method, body: body ? JSON.parse(body) : null, big: 0 }).replace(
          '"big":0',
          '"big":123456789012345678901234567890',
        ),
      )
    } else if (url.pathname === '/yaml') {
      res.writeHead(200, { 'Content-Type': 'application/yaml' })
      res.end('a: [1, 2]\n')
    } else if (url.pathname === '/slow') {
      setTimeout(() => res.end('late'), 2_000)
    } else if (url.pathname === '/redirect') {
      res.writeHead(302, { Location: '/json' })
      res.end()
    } else if (url.pathname === '/cached') {
      res.writeHead(200, { 'Content-Type': 'text/plain', 'Cache-Control': 'max-age=60' })
      res.end(`hit ${hits}`)
    } else {
      res.writeHead(404)
      res.end('nope')
    }
  })
}

const get = (o: Value | undefined, k: string) => (o as { get(k: string): Value }).get(k)

beforeAll(async () => {
  server = createServer(handler)
  await new Promise<void>((r) => server.listen(0, '127.0.0.1', r))
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`
})
afterAll(() => new Promise<void>((r) => server.close(() => r())))

describe('http.send', () => {
  it('sends JSON bodies and headers, decodes JSON losslessly', async () => {
    const res = await callAsync(testContext(), 'http.send', {
      method: 'post',
      url: `${base}/json`,
      body: { a: 1 },
      headers: { 'X-Token': 't' },
    })
    expect(get(res, 'status_code')).toBe(200)
    expect(get(res, 'status')).toBe('200 OK')
    expect(toJSONText(get(res, 'body') as Value)).toBe(
      '{"big":123456789012345678901234567890,"body":{"a":1},"method":"POST"}',
    )
    expect(toJSONText(get(get(res, 'headers'), 'x-echo') as Value)).toBe('["t"]')
  })

  it('decodes YAML, keeps non-2xx responses, follows redirects only when enabled', async () => {
    const yaml = await callAsync(testContext(), 'http.send', { method: 'get', url: `${base}/yaml` })
    expect(toJSONText(get(yaml, 'body') as Value)).toBe('{"a":[1,2]}')
    const missing = await callAsync(testContext(), 'http.send', { method: 'get', url: `${base}/missing` })
    expect(get(missing, 'status_code')).toBe(404)
    expect(get(missing, 'body')).toBeNull()
    expect(get(missing, 'raw_body')).toBe('nope')
    const noFollow = await callAsync(testContext(), 'http.send', { method: 'get', url: `${base}/redirect` })
    expect(get(noFollow, 'status_code')).toBe(302)
    const follow = await callAsync(testContext(), 'http.send', {
      method: 'get',
      url: `${base}/redirect`,
      enable_redirect: true,
    })
    expect(get(follow, 'status_code')).toBe(200)
  })

  it('times out, and reports errors as values with raise_error false', async () => {
    await expect(
      callAsync(testContext(), 'http.send', { method: 'get', url: `${base}/slow`, timeout: '100ms' }),
    ).rejects.toMatchObject({
      code: 'eval_builtin_error',
      // OPA's handleHTTPSendErr: the URL unquoted, Go's url.Error Op first.
      message: `http.send: Get ${base}/slow: request timed out`,
    })
    const soft = await callAsync(testContext(), 'http.send', {
      method: 'get',
      url: `${base}/slow`,
      timeout: '100ms',
      raise_error: false,
    })
    expect(get(soft, 'status_code')).toBe(0)
    expect(get(get(soft, 'error'), 'code')).toBe('eval_http_send_network_error')
    // raise_error false skips handleHTTPSendErr: the response carries Go's url.Error as is.
    expect(get(get(soft, 'error'), 'message')).toBe(
      `Get "${base}/slow": context deadline exceeded (Client.Timeout exceeded while awaiting headers)`,
    )
  })

  it('validates request keys with OPA messages and respects allow_net', async () => {
    await expect(
      callAsync(testContext(), 'http.send', { method: 'get', url: base, bad_key: 1 }),
    ).rejects.toMatchObject({
      code: 'eval_type_error',
      message: 'http.send: operand 1 invalid request parameters(s): {"bad_key"}',
    })
    await expect(callAsync(testContext(), 'http.send', { method: 'get' })).rejects.toThrow(
      'missing required request parameters(s): {"url"}',
    )
    await expect(
      callAsync(testContext({ allowNet: ['example.com'] }), 'http.send', {
        method: 'get',
        url: `${base}/json`,
      }),
    ).rejects.toThrow('unallowed host: 127.0.0.1')
  })

  it('caches within a query, and across queries when asked', async () => {
    const ctx = testContext()
    const before = hits
    const a = await callAsync(ctx, 'http.send', { method: 'get', url: `${base}/cached` })
    const b = await callAsync(ctx, 'http.send', { method: 'get', url: `${base}/cached` })
    expect(b).toBe(a)
    expect(hits).toBe(before + 1)
    const store = new Map<string, { value: Value; expiresAt: number }>()
    const inter: InterQueryCache = {
      get: (k) => store.get(k),
      set: (k, v) => store.set(k, v),
      delete: (k) => store.delete(k),
    }
    const first = await callAsync(testContext({ interQueryCache: inter }), 'http.send', {
      method: 'get',
      url: `${base}/cached`,
      cache: true,
    })
    const second = await callAsync(testContext({ interQueryCache: inter }), 'http.send', {
      method: 'get',
      url: `${base}/cached`,
      cache: true,
    })
    expect(get(second, 'raw_body')).toBe(get(first, 'raw_body'))
    const third = await callAsync(testContext({ interQueryCache: inter }), 'http.send', {
      method: 'get',
      url: `${base}/json`,
      force_cache: true,
      force_cache_duration_seconds: 60,
    })
    expect(store.size).toBe(2)
    expect(get(third, 'status_code')).toBe(200)
  })
})

describe('http.send over TLS', () => {
  let dir = ''
  let https: ReturnType<typeof createHttpsServer>
  let url = ''
  let ca = ''
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'regent-https-'))
    execFileSync(
      'openssl',
      [
        'req',
        '-x509',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        'k.pem',
        '-out',
        'c.pem',
        '-days',
        '1',
        '-subj',
        '/CN=localhost',
        '-addext',
        'subjectAltName=IP:127.0.0.1,DNS:localhost',
      ],
      { cwd: dir, stdio: 'pipe' },
    )
    ca = readFileSync(join(dir, 'c.pem'), 'utf8')
    https = createHttpsServer({ key: readFileSync(join(dir, 'k.pem')), cert: ca }, handler)
    await new Promise<void>((r) => https.listen(0, '127.0.0.1', r))
    url = `https://127.0.0.1:${(https.address() as AddressInfo).port}/json`
  })
  afterAll(async () => {
    await new Promise<void>((r) => https.close(() => r()))
    rmSync(dir, { recursive: true, force: true })
  })

  it('trusts a given CA, refuses unknown ones, or skips verification when told', async () => {
    const ok = await callAsync(testContext(), 'http.send', { method: 'get', url, tls_ca_cert: ca })
    expect(get(ok, 'status_code')).toBe(200)
    await expect(callAsync(testContext(), 'http.send', { method: 'get', url })).rejects.toMatchObject({
      code: 'eval_builtin_error',
    })
    const skipped = await callAsync(testContext(), 'http.send', {
      method: 'get',
      url,
      tls_insecure_skip_verify: true,
    })
    expect(get(skipped, 'status_code')).toBe(200)
  })
})
