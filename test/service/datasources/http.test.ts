/**
 * The `http` category end to end on a real service: an HTTPS source on 127.0.0.1 whose CA is
 * generated here, headers from secrets, the Rego filter, JSON/YAML/XML, the data reaching the
 * system's bundle, and failures (HTTP status, TLS, timeout, redirect, size, decode) that set the
 * status and keep the last good data. Runs on SQLite and (when configured) PostgreSQL.
 */
import { createServer as createHttpsServer, type Server } from 'node:https'
import type { AddressInfo } from 'node:net'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { readBundle } from '../../../core/bundle/index.js'
import { BACKENDS } from '../../store/backends.js'
import { createTestPki, type TestPki } from '../../support/test-pki.js'
import { startTestService, type TestService } from '../harness.js'

const TOKEN = 'Bearer LEAKCANARY-source-token-4d2'

interface Status {
  code: string
  message: string
  last_attempt: string | null
  last_success: string | null
  duration: number | null
  size: number | null
  items: number | null
}

/** The source: a few documents and a few ways to fail, counting what it is asked. */
function startSource(pki: TestPki, options: { requireClientCert?: boolean } = {}) {
  const seen: Array<{ path: string; method: string; authorization?: string; body: string }> = []
  const state = {
    flaky: 200,
    users: [
      { name: 'alice', admin: true },
      { name: 'bob', admin: false },
    ] as unknown,
  }
  const server: Server = createHttpsServer(
    {
      key: pki.serverKey,
      cert: pki.serverCert,
      ...(options.requireClientCert ? { ca: pki.ca, requestCert: true, rejectUnauthorized: true } : {}),
    },
    (req, res) => {
      let body = ''
      req.on('data', (c) => {
        body += c
      })
      req.on('end', () => {
        const path = req.url ?? '/'
        seen.push({ path, method: req.method ?? '', authorization: req.headers.authorization, body })
        const send = (status: number, type: string, text: string) => {
          res.writeHead(status, { 'Content-Type': type })
          res.end(text)
        }
        if (path === '/users') return send(200, 'application/json', JSON.stringify(state.users))
        if (path === '/users.yaml')
          return send(200, 'application/yaml', '- name: alice\n  admin: true\n- name: carol\n')
        if (path === '/feed')
          return send(200, 'application/xml', '<feed><item id="1">a</item><item id="2">b</item></feed>')
        if (path === '/bomb')
          return send(200, 'text/xml', '<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaaaaaa">]><x>&a;</x>')
        if (path === '/broken') return send(200, 'application/json', '{"users": [1, 2,]}')
        if (path === '/flaky') return send(state.flaky, 'application/json', '{"ok": true}')
        if (path === '/moved') {
          res.writeHead(302, { Location: 'https://elsewhere.example.com/users' })
          return res.end()
        }
        if (path === '/big')
          return send(200, 'application/json', JSON.stringify({ blob: 'x'.repeat(200_000) }))
        if (path === '/echo')
          return send(200, 'application/json', JSON.stringify({ method: req.method, body }))
        if (path === '/hang') return // never answers
        send(404, 'text/plain', 'not found')
      })
    },
  )
  return new Promise<{ url: string; seen: typeof seen; state: typeof state; close(): Promise<void> }>(
    (resolve) => {
      server.listen(0, '127.0.0.1', () => {
        const { port } = server.address() as AddressInfo
        resolve({
          url: `https://127.0.0.1:${port}`,
          seen,
          state,
          close: () =>
            new Promise<void>((done) => {
              server.closeAllConnections()
              server.close(() => done())
            }),
        })
      })
    },
  )
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`http datasources on ${backend.name}`, () => {
    let t: TestService
    let pki: TestPki
    let source: Awaited<ReturnType<typeof startSource>>
    let mtlsSource: Awaited<ReturnType<typeof startSource>>

    const put = (name: string, config: Record<string, unknown>) =>
      t.json<{ result: { status: Status }; message?: string }>('PUT', `/v1/datasources/systems/app/${name}`, {
        body: { category: 'http', ca_certificate: pki.ca, ...config },
      })
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
      pki = createTestPki()
      source = await startSource(pki)
      mtlsSource = await startSource(pki, { requireClientCert: true })
      // Runs are triggered by the tests (POST); the scheduler only looks once an hour here.
      t = await startTestService(
        backend,
        'datasources: {scheduler_interval: 1h, timeout: 2s, max_bytes_per_run: 100000}',
      )
      await t.json('PUT', '/v1/systems/app', {
        body: { name: 'app', type: 'custom' },
        headers: { 'If-None-Match': '*' },
      })
      await t.json('PUT', '/v1/secrets/source/token', { body: { name: 'token', secret: TOKEN } })
      await t.json('PUT', '/v1/secrets/source/client-key', {
        body: { name: 'client key', secret: pki.clientKey },
      })
    })
    afterAll(async () => {
      await t?.close()
      await source?.close()
      await mtlsSource?.close()
      pki?.cleanup()
    })

    it('fetches over HTTPS with a custom CA and a secret header, and the data reaches the bundle', async () => {
      const put1 = await put('users', {
        url: `${source.url}/users`,
        headers: [
          { name: 'Authorization', secret_id: 'source/token' },
          { name: 'X-Team', value: 'policy' },
        ],
      })
      expect(put1.status, put1.body.message).toBe(200)
      const status = await run('users')
      expect(status).toMatchObject({ code: 'ok', message: '', items: 2, size: expect.any(Number) })
      expect(status.last_success).not.toBeNull()
      expect(source.seen.at(-1)).toMatchObject({ path: '/users', method: 'GET', authorization: TOKEN })
      expect((await bundleData()).users).toEqual([
        { name: 'alice', admin: true },
        { name: 'bob', admin: false },
      ])
      const got = await t.json('GET', '/v1/datasources/systems/app/users')
      expect(got.body).toMatchObject({ result: { status: { code: 'ok', items: 2 } } })
      expect(JSON.stringify(got.body)).not.toContain('LEAKCANARY')
    })

    it('filters the content with the Rego policy_filter and stores the query result', async () => {
      await put('admins', {
        url: `${source.url}/users`,
        policy_filter: 'package filter\n\nadmins contains u.name if {\n\tsome u in input\n\tu.admin\n}\n',
        policy_query: 'data.filter.admins',
      })
      expect(await run('admins')).toMatchObject({ code: 'ok', items: 1 })
      expect((await bundleData()).admins).toEqual(['alice'])
    })

    it('reports a filter error with file:line and keeps the last good data', async () => {
      await put('strict', {
        url: `${source.url}/users`,
        policy_filter:
          'package filter\n\nfirst := x if {\n\tx := input[0]\n}\n\nnames := {u.name | some u in input}\n',
        policy_query: 'data.filter.first',
      })
      expect(await run('strict')).toMatchObject({ code: 'ok' })
      await put('strict', {
        url: `${source.url}/users`,
        // Two users, two values for one complete rule: a conflict at evaluation time.
        policy_filter: 'package filter\n\nfirst := u if {\n\tsome u in input\n}\n',
        policy_query: 'data.filter.first',
      })
      const failed = await run('strict')
      expect(failed.code).toBe('error')
      expect(failed.message).toMatch(/^filter error: policy_filter\.rego:3:\d+: eval_conflict_error/)
      expect((await bundleData()).strict).toEqual({ name: 'alice', admin: true })
    })

    it('reads YAML and XML by media type, and refuses XML entity declarations', async () => {
      await put('yaml', { url: `${source.url}/users.yaml` })
      expect(await run('yaml')).toMatchObject({ code: 'ok', items: 2 })
      expect((await bundleData()).yaml).toEqual([{ name: 'alice', admin: true }, { name: 'carol' }])
      await put('xml', { url: `${source.url}/feed` })
      expect(await run('xml')).toMatchObject({ code: 'ok' })
      expect((await bundleData()).xml).toEqual({
        feed: {
          item: [
            { '#text': 'a', '@_id': '1' },
            { '#text': 'b', '@_id': '2' },
          ],
        },
      })
      await put('bomb', { url: `${source.url}/bomb` })
      const bomb = await run('bomb')
      expect(bomb).toMatchObject({ code: 'error' })
      expect(bomb.message).toContain('entity declarations are refused')
      expect((await bundleData()).bomb).toBeUndefined()
    })

    it('names the position of a decode error', async () => {
      await put('broken', { url: `${source.url}/broken` })
      const status = await run('broken')
      expect(status.code).toBe('error')
      expect(status.message).toMatch(
        /^decode error: JSON of https:\/\/127\.0\.0\.1:\d+\/broken: .*line 1, column \d+/,
      )
    })

    it('keeps the last good data when the source fails, and recovers', async () => {
      await put('flaky', { url: `${source.url}/flaky` })
      expect(await run('flaky')).toMatchObject({ code: 'ok' })
      const good = (await bundleData()).flaky
      source.state.flaky = 503
      const failed = await run('flaky')
      expect(failed).toMatchObject({
        code: 'error',
        message: `http error: GET ${source.url}/flaky answered 503`,
      })
      expect(failed.last_success).not.toBeNull()
      expect((await bundleData()).flaky).toEqual(good)
      const row = await t.service.store.datasources.get('systems/app/flaky')
      expect(row!.failures).toBe(1)
      source.state.flaky = 200
      expect(await run('flaky')).toMatchObject({ code: 'ok' })
      expect((await t.service.store.datasources.get('systems/app/flaky'))!.failures).toBe(0)
    })

    it('fails on an unknown CA, and passes with skip_tls_verification', async () => {
      const unverified = await t.json<{ result: { status: Status } }>(
        'PUT',
        '/v1/datasources/systems/app/noca',
        {
          body: { category: 'http', url: `${source.url}/users` },
        },
      )
      expect(unverified.status).toBe(200)
      const status = await run('noca')
      expect(status.code).toBe('error')
      expect(status.message).toMatch(/^TLS error: /)
      await t.json('PUT', '/v1/datasources/systems/app/noca', {
        body: { category: 'http', url: `${source.url}/users`, skip_tls_verification: true },
      })
      expect(await run('noca')).toMatchObject({ code: 'ok', items: 2 })
    })

    it('presents a client certificate whose key is a secret (mTLS)', async () => {
      await put('mtls', { url: `${mtlsSource.url}/users` })
      const refused = await run('mtls')
      expect(refused.code).toBe('error')
      await put('mtls', {
        url: `${mtlsSource.url}/users`,
        mtls_certificate: pki.clientCert,
        mtls_private_key_secret_id: 'source/client-key',
      })
      expect(await run('mtls')).toMatchObject({ code: 'ok', items: 2 })
    })

    it('sends POST and QUERY with a JSON body or a base64 raw body', async () => {
      await put('post', { url: `${source.url}/echo`, method: 'POST', body: '{"q": 1}' })
      expect(await run('post')).toMatchObject({ code: 'ok' })
      expect((await bundleData()).post).toEqual({ method: 'POST', body: '{"q": 1}' })
      await put('query', {
        url: `${source.url}/echo`,
        method: 'QUERY',
        raw_body: Buffer.from('raw!').toString('base64'),
      })
      expect(await run('query')).toMatchObject({ code: 'ok' })
      expect((await bundleData()).query).toEqual({ method: 'QUERY', body: 'raw!' })
    })

    it('does not follow redirects, stops at the byte limit and at the timeout', async () => {
      await put('moved', { url: `${source.url}/moved` })
      expect((await run('moved')).message).toContain('redirects (302) to https://elsewhere.example.com/users')
      await put('big', { url: `${source.url}/big` })
      expect((await run('big')).message).toBe(`size limit: ${source.url}/big answered more than 100000 bytes`)
      await put('hang', { url: `${source.url}/hang` })
      const hung = await run('hang')
      expect(hung.code).toBe('error')
      expect(hung.message).toMatch(/^timeout: /)
      for (const name of ['moved', 'big', 'hang']) expect((await bundleData())[name]).toBeUndefined()
    })

    it('runs nothing that is disabled', async () => {
      await put('off', { url: `${source.url}/users`, enabled: false })
      const res = await t.json<{ message: string }>('POST', '/v1/datasources/systems/app/off')
      expect(res.status).toBe(409)
      expect((await t.service.store.datasources.get('systems/app/off'))!.scheduled).toBe(0)
    })
  })

  describe.skipIf(!backend.available)(`the datasource scheduler on ${backend.name}`, () => {
    let t: TestService
    let pki: TestPki
    let source: Awaited<ReturnType<typeof startSource>>
    beforeAll(async () => {
      pki = createTestPki()
      source = await startSource(pki)
      t = await startTestService(backend, 'datasources: {scheduler_interval: 100ms}')
      await t.json('PUT', '/v1/systems/app', {
        body: { name: 'app', type: 'custom' },
        headers: { 'If-None-Match': '*' },
      })
    })
    afterAll(async () => {
      await t?.close()
      await source?.close()
      pki?.cleanup()
    })

    it('runs a datasource on its own, again every polling_interval', async () => {
      const res = await t.json('PUT', '/v1/datasources/systems/app/polled', {
        body: {
          category: 'http',
          url: `${source.url}/users`,
          ca_certificate: pki.ca,
          polling_interval: '1s',
        },
      })
      expect(res.status).toBe(200)
      await vi.waitFor(
        () => expect(source.seen.filter((s) => s.path === '/users').length).toBeGreaterThanOrEqual(2),
        {
          timeout: 20_000,
          interval: 100,
        },
      )
      const got = await t.json<{ result: { status: Status } }>('GET', '/v1/datasources/systems/app/polled')
      expect(got.body.result.status.last_success).not.toBeNull()
      // The schedule lives in the database: the next run is about one interval after the last.
      // Read from one row between runs (a run in progress has a newer last_attempt than the
      // next_run_at the previous run set; on a busy machine the read above can fall inside one).
      await vi.waitFor(
        async () => {
          const row = (await t.service.store.datasources.get('systems/app/polled'))!
          const status = JSON.parse(row.status) as Status
          expect(status.code).toBe('ok')
          expect(Date.parse(row.next_run_at)).toBeGreaterThan(Date.parse(status.last_attempt!))
        },
        { timeout: 20_000, interval: 50 },
      )
    })
  })
}
