/**
 * The agent over TLS with throwaway CAs: HTTPS, client certificates as identities
 * (`--authentication tls`), certificates checked only when given (token authentication with a CA),
 * `--min-tls-version`, `--tls-cipher-suites` by IANA name, and `--tls-cert-refresh-period`
 * picking up replaced files.
 */
import { execFileSync } from 'node:child_process'
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { connect } from 'node:http2'
import { request } from 'node:https'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import type { TLSSocket } from 'node:tls'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_AUTHORIZATION_DECISION } from '../../agent/authz.js'
import { knownCipherSuites, opensslCipherList } from '../../agent/cipher-suites.js'
import type { TlsSettings } from '../../agent/tls.js'
import { createTestPki, type TestPki } from '../support/test-pki.js'
import { startTestAgent } from './support/start-agent.js'

interface ClientOptions {
  ca: string | string[]
  cert?: string
  key?: string
  maxVersion?: 'TLSv1.2' | 'TLSv1.3'
  ciphers?: string
}

interface Answer {
  status: number
  body: string
  cipher: string
  fingerprint: string
}

/** One GET over a fresh connection (no agent), so each call does its own handshake. */
function get(url: string, client: ClientOptions): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = request(url, { ...client, agent: false, servername: undefined }, (res) => {
      const socket = res.socket as TLSSocket
      const answer = {
        cipher: socket.getCipher().name,
        fingerprint: socket.getPeerCertificate().fingerprint256,
      }
      let body = ''
      res.setEncoding('utf8')
      res.on('data', (chunk) => {
        body += chunk
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body, ...answer }))
    })
    req.on('error', reject)
    req.setTimeout(5_000, () => req.destroy(new Error('timeout')))
    req.end()
  })
}

/** The status of one HTTP/2 GET. */
function h2Status(url: string, client: ClientOptions): Promise<number> {
  const { origin, pathname } = new URL(url)
  return new Promise((resolve, reject) => {
    const session = connect(origin, client)
    session.on('error', reject)
    const stream = session.request({ ':path': pathname })
    stream.on('response', (headers) => {
      stream.resume()
      stream.on('end', () => {
        session.close()
        resolve(Number(headers[':status']))
      })
    })
    stream.on('error', reject)
  })
}

let pki: TestPki
let other: TestPki
let dir: string
let files: { cert: string; key: string; ca: string }

beforeAll(() => {
  pki = createTestPki()
  other = createTestPki()
  dir = mkdtempSync(join(tmpdir(), 'regent-agent-tls-'))
  files = { cert: join(dir, 'server.pem'), key: join(dir, 'server.key'), ca: join(dir, 'ca.pem') }
  writeFileSync(files.cert, pki.serverCert)
  writeFileSync(files.key, pki.serverKey)
  writeFileSync(files.ca, pki.ca)
})
afterAll(() => {
  pki.cleanup()
  other.cleanup()
  rmSync(dir, { recursive: true, force: true })
})

const tls = (extra: Partial<TlsSettings> = {}): TlsSettings => ({
  certFile: files.cert,
  keyFile: files.key,
  minVersion: 'TLSv1.2',
  requireClientCert: false,
  refreshMs: 0,
  ...extra,
})

describe('TLS authentication', () => {
  it('requires a client certificate signed by the CA and makes its subject the identity', async () => {
    const agent = await startTestAgent({
      policies: {
        'authz.rego': `package system.authz

allow if {
  input.identity == "CN=regent-client"
  input.client_certificates[0].issuer == "CN=regent-test-ca"
}
`,
      },
      server: {
        authentication: 'tls',
        authorizationDecision: DEFAULT_AUTHORIZATION_DECISION,
        tls: tls({ caFile: files.ca, requireClientCert: true }),
      },
    })
    try {
      const url = agent.urls[0] as string
      expect(url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/)
      const withCert = await get(`${url}/v1/data`, { ca: pki.ca, cert: pki.clientCert, key: pki.clientKey })
      expect(withCert.status).toBe(200)
      // HTTP/2 (ALPN) carries the same identity.
      expect(await h2Status(`${url}/v1/data`, { ca: pki.ca, cert: pki.clientCert, key: pki.clientKey })).toBe(
        200,
      )
      await expect(get(`${url}/v1/data`, { ca: pki.ca })).rejects.toThrow()
      // A certificate from another CA is refused at the handshake.
      await expect(
        get(`${url}/v1/data`, { ca: pki.ca, cert: other.clientCert, key: other.clientKey }),
      ).rejects.toThrow()
    } finally {
      await agent.stop()
    }
  })

  it('with token authentication, checks a client certificate only when one is given', async () => {
    const agent = await startTestAgent({
      server: { authentication: 'token', tls: tls({ caFile: files.ca }) },
    })
    try {
      const url = agent.urls[0] as string
      expect((await get(`${url}/health`, { ca: pki.ca })).status).toBe(200)
      expect(
        (await get(`${url}/health`, { ca: pki.ca, cert: pki.clientCert, key: pki.clientKey })).status,
      ).toBe(200)
      await expect(
        get(`${url}/health`, { ca: pki.ca, cert: other.clientCert, key: other.clientKey }),
      ).rejects.toThrow()
    } finally {
      await agent.stop()
    }
  })
})

describe('TLS versions and cipher suites', () => {
  it('refuses clients below --min-tls-version 1.3', async () => {
    const agent = await startTestAgent({ server: { tls: tls({ minVersion: 'TLSv1.3' }) } })
    try {
      const url = agent.urls[0] as string
      expect((await get(`${url}/health`, { ca: pki.ca })).cipher).toMatch(/^TLS_/)
      await expect(get(`${url}/health`, { ca: pki.ca, maxVersion: 'TLSv1.2' })).rejects.toThrow()
    } finally {
      await agent.stop()
    }
  })

  it('offers only the TLS 1.2 suites named by --tls-cipher-suites', async () => {
    const ciphers = opensslCipherList(['TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256'])
    const agent = await startTestAgent({ server: { tls: tls({ ciphers }) } })
    try {
      const url = agent.urls[0] as string
      const ok = await get(`${url}/health`, {
        ca: pki.ca,
        maxVersion: 'TLSv1.2',
        ciphers: 'ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-ECDSA-AES256-GCM-SHA384',
      })
      expect(ok.cipher).toBe('ECDHE-ECDSA-AES128-GCM-SHA256')
      await expect(
        get(`${url}/health`, { ca: pki.ca, maxVersion: 'TLSv1.2', ciphers: 'ECDHE-ECDSA-AES256-GCM-SHA384' }),
      ).rejects.toThrow()
    } finally {
      await agent.stop()
    }
  })

  it('maps IANA names as OpenSSL itself does', () => {
    let stdnames: string
    try {
      stdnames = execFileSync('openssl', ['ciphers', '-stdname', 'ALL:@SECLEVEL=0'], { encoding: 'utf8' })
    } catch {
      console.warn('skipped: no openssl command to compare the cipher table with')
      return
    }
    const openssl = new Map(
      stdnames
        .split('\n')
        .map((line) => line.split(/\s+-\s+|\s+/))
        .filter((parts) => parts.length >= 2)
        .map((parts) => [parts[0], parts[1]]),
    )
    const table = Object.entries(knownCipherSuites())
    const checked = table.filter(([iana]) => openssl.has(iana))
    expect(checked.length).toBeGreaterThan(10)
    for (const [iana, name] of checked) expect([iana, openssl.get(iana)]).toEqual([iana, name])
  })
})

describe('certificate refresh', () => {
  it('serves replaced certificate files after the refresh period', async () => {
    const agent = await startTestAgent({ server: { tls: tls({ refreshMs: 100 }) } })
    try {
      const url = agent.urls[0] as string
      const client = { ca: [pki.ca, other.ca] }
      const before = await get(`${url}/health`, client)
      writeFileSync(files.key, other.serverKey)
      writeFileSync(files.cert, other.serverCert)
      let after = before
      for (let i = 0; i < 50 && after.fingerprint === before.fingerprint; i++) {
        await new Promise((resolve) => setTimeout(resolve, 100))
        after = await get(`${url}/health`, client)
      }
      expect(after.fingerprint).not.toBe(before.fingerprint)
      expect(after.status).toBe(200)
    } finally {
      writeFileSync(files.cert, pki.serverCert)
      writeFileSync(files.key, pki.serverKey)
      await agent.stop()
    }
  })
})
