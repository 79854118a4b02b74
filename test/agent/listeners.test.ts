/**
 * The agent's listeners: `--h2c` (HTTP/2 with prior knowledge and HTTP/1.1 on one port), `unix://`
 * addresses with `--unix-socket-perm`, `--diagnostic-addr` (health and metrics, no authorization),
 * `/metrics` in Prometheus format, and shutdown: in-flight requests finish within the grace period,
 * and the wait period keeps serving before the stop begins.
 */
import { mkdtempSync, rmSync, statSync } from 'node:fs'
import { request as httpRequest } from 'node:http'
import { connect } from 'node:http2'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_AUTHORIZATION_DECISION } from '../../agent/authz.js'
import { handlerLabel } from '../../agent/metrics.js'
import { LOOPBACK, startTestAgent } from './support/start-agent.js'

let dir: string
beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-agent-listen-'))
})
afterAll(() => rmSync(dir, { recursive: true, force: true }))

function h2Get(url: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const session = connect(url)
    session.on('error', reject)
    const stream = session.request({ ':path': path })
    let status = 0
    let body = ''
    stream.on('response', (headers) => {
      status = Number(headers[':status'])
    })
    stream.setEncoding('utf8')
    stream.on('data', (chunk) => {
      body += chunk
    })
    stream.on('end', () => {
      session.close()
      resolve({ status, body })
    })
    stream.on('error', reject)
  })
}

function unixGet(socketPath: string, path: string): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = httpRequest({ socketPath, path }, (res) => {
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (c) => {
        body += c
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body }))
    })
    req.on('error', reject)
    req.end()
  })
}

describe('--h2c', () => {
  it('answers HTTP/2 with prior knowledge and HTTP/1.1 on the same port', async () => {
    const agent = await startTestAgent({
      policies: { 'p.rego': 'package p\n\nx := 7\n' },
      server: { h2c: true },
    })
    try {
      const url = agent.urls[0] as string
      const h2 = await h2Get(url, '/v1/data/p/x')
      expect(h2).toEqual({ status: 200, body: '{"result":7}' })
      const h1 = await fetch(`${url}/v1/data/p/x`)
      expect(await h1.json()).toEqual({ result: 7 })
    } finally {
      await agent.stop()
    }
  })

  it('is HTTP/1.1 only without the flag', async () => {
    const agent = await startTestAgent({})
    try {
      await expect(h2Get(agent.urls[0] as string, '/health')).rejects.toThrow()
    } finally {
      await agent.stop()
    }
  })
})

describe('unix sockets', () => {
  it('listens on unix:// with the file mode of --unix-socket-perm', async () => {
    const path = join(dir, 'agent.sock')
    const agent = await startTestAgent({
      addresses: [{ kind: 'unix', path }],
      server: { unixSocketPerm: 0o700 },
    })
    try {
      expect(agent.urls).toEqual([`unix://${path}`])
      expect(statSync(path).mode & 0o777).toBe(0o700)
      expect(await unixGet(path, '/health')).toEqual({ status: 200, body: '{}' })
    } finally {
      await agent.stop()
    }
  })
})

describe('metrics and the diagnostic listener', () => {
  it('serves health and metrics without authorization on --diagnostic-addr, and nothing else', async () => {
    const agent = await startTestAgent({
      policies: { 'authz.rego': 'package system.authz\n\ndefault allow := false\n' },
      server: { authorizationDecision: DEFAULT_AUTHORIZATION_DECISION, diagnosticAddrs: [LOOPBACK] },
    })
    try {
      const [main, diagnostic] = [agent.urls[0] as string, agent.diagnosticUrls[0] as string]
      expect((await fetch(`${main}/health`)).status).toBe(401)
      expect((await fetch(`${main}/metrics`)).status).toBe(401)
      expect((await fetch(`${diagnostic}/health`)).status).toBe(200)
      expect((await fetch(`${diagnostic}/v1/data`)).status).toBe(404)
      const metrics = await fetch(`${diagnostic}/metrics`)
      expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/)
      const text = await metrics.text()
      // The refusals on the main listener were timed with their status and OPA's handler names.
      expect(text).toContain(
        'http_request_duration_seconds_count{code="401",handler="health",method="get"} 1',
      )
      expect(text).toContain(
        'http_request_duration_seconds_count{code="401",handler="metrics",method="get"} 1',
      )
      expect(text).toMatch(/^process_cpu_seconds_total /m)
    } finally {
      await agent.stop()
    }
  })

  it('names handlers as OPA does', () => {
    expect(handlerLabel('/')).toBe('index')
    expect(handlerLabel('/v1/data/a/b')).toBe('v1/data')
    expect(handlerLabel('/v0/data')).toBe('v0/data')
    expect(handlerLabel('/health/live')).toBe('health')
    // Unknown paths share one label, so random paths cannot grow the metric without bound.
    expect(handlerLabel('/wp-admin/x')).toBe('other')
    expect(handlerLabel('/v1/nope')).toBe('other')
  })
})

describe('shutdown', () => {
  it('lets an in-flight request finish, and refuses new connections once stopping', async () => {
    const agent = await startTestAgent({ server: { pprof: true, graceMs: 10_000 } })
    const url = agent.urls[0] as string
    // A one-second CPU profile is a request that stays in flight for a second.
    const inFlight = fetch(`${url}/debug/pprof/profile?seconds=1`)
    await new Promise((resolve) => setTimeout(resolve, 200))
    const stopped = agent.stop()
    await new Promise((resolve) => setTimeout(resolve, 100))
    await expect(fetch(`${url}/health`)).rejects.toThrow()
    const res = await inFlight
    expect(res.status).toBe(200)
    expect(Array.isArray(((await res.json()) as { nodes: unknown[] }).nodes)).toBe(true)
    await stopped
  })

  it('keeps serving for the wait period before it stops', async () => {
    const agent = await startTestAgent({ server: { waitMs: 600 } })
    const url = agent.urls[0] as string
    const started = Date.now()
    const stopped = agent.stop()
    await new Promise((resolve) => setTimeout(resolve, 200))
    expect((await fetch(`${url}/health`)).status).toBe(200)
    await stopped
    expect(Date.now() - started).toBeGreaterThanOrEqual(590)
    await expect(fetch(`${url}/health`)).rejects.toThrow()
  })

  it('cuts requests still running when the grace period is over', async () => {
    const agent = await startTestAgent({ server: { pprof: true, graceMs: 200 } })
    const url = agent.urls[0] as string
    const inFlight = fetch(`${url}/debug/pprof/profile?seconds=3`)
    await new Promise((resolve) => setTimeout(resolve, 200))
    const started = Date.now()
    await agent.stop()
    expect(Date.now() - started).toBeLessThan(2_000)
    await expect(inFlight).rejects.toThrow()
  })
})
