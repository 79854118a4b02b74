import { execFileSync } from 'node:child_process'
import { readFileSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { Agent, request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type FaultUpstream, makeBundle, startFaultUpstream } from '../../support/fault-upstream.js'
import { eventually, relayConfig, startTestRelay, tempDir } from '../helpers.js'

describe('agent-facing auth', () => {
  let upstream: FaultUpstream
  let dir: Awaited<ReturnType<typeof tempDir>>
  beforeAll(async () => {
    upstream = await startFaultUpstream()
    upstream.setBundle('/v1/bundles/authz', await makeBundle({ revision: 'r1' }), '"e1"')
    dir = await tempDir()
  })
  afterAll(async () => {
    await upstream.stop()
    await dir.cleanup()
  })

  it('bearer: agents need one of the tokens (file tokens re-read); probes and metrics need none', async () => {
    const tokenFile = join(dir.dir, 'tokens')
    writeFileSync(tokenFile, 'from-file\n')
    const relay = await startTestRelay(
      relayConfig(`
services: { up: { url: "${upstream.url}/v1" } }
bundles: { authz: {} }
relay: { agent_auth: { type: bearer, tokens: [inline-token], token_path: ${tokenFile} } }
`),
      join(dir.dir, 'bearer'),
    )
    try {
      await eventually(async () => (await request(`${relay.url}/health/ready`)).statusCode === 200)
      const none = await request(`${relay.url}/v1/bundles/authz`)
      expect(none.statusCode).toBe(401)
      expect(((await none.body.json()) as { code: string }).code).toBe('unauthorized')
      const wrong = await request(`${relay.url}/v1/status`, {
        method: 'POST',
        headers: { Authorization: 'Bearer nope' },
      })
      expect(wrong.statusCode).toBe(401)
      await wrong.body.dump()
      for (const token of ['inline-token', 'from-file']) {
        const ok = await request(`${relay.url}/v1/bundles/authz`, {
          headers: { Authorization: `Bearer ${token}` },
        })
        expect(ok.statusCode).toBe(200)
        await ok.body.dump()
      }
      // A rotated file is picked up without a restart.
      writeFileSync(tokenFile, 'rotated\n')
      await eventually(
        async () =>
          (await request(`${relay.url}/v1/bundles/authz`, { headers: { Authorization: 'Bearer rotated' } }))
            .statusCode === 200,
        3000,
        'rotated token',
      )
      expect((await request(`${relay.url}/metrics`)).statusCode).toBe(200)
      expect((await request(`${relay.url}/v1/relay/status`)).statusCode).toBe(401)
    } finally {
      await relay.stop()
    }
  })

  it('mtls: only agents with a certificate from the client CA get through', async () => {
    const pki = join(dir.dir, 'pki')
    execFileSync('mkdir', ['-p', pki])
    const ssl = (...args: string[]) => execFileSync('openssl', args, { cwd: pki, stdio: 'ignore' })
    ssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'ca.key',
      '-out',
      'ca.pem',
      '-days',
      '1',
      '-subj',
      '/CN=test-ca',
    )
    for (const name of ['server', 'agent']) {
      ssl(
        'req',
        '-newkey',
        'ec',
        '-pkeyopt',
        'ec_paramgen_curve:P-256',
        '-nodes',
        '-keyout',
        `${name}.key`,
        '-out',
        `${name}.csr`,
        '-subj',
        `/CN=${name === 'server' ? '127.0.0.1' : 'agent'}`,
      )
      writeFileSync(
        join(pki, `${name}.ext`),
        name === 'server' ? 'subjectAltName=IP:127.0.0.1\n' : 'extendedKeyUsage=clientAuth\n',
      )
      ssl(
        'x509',
        '-req',
        '-in',
        `${name}.csr`,
        '-CA',
        'ca.pem',
        '-CAkey',
        'ca.key',
        '-CAcreateserial',
        '-out',
        `${name}.pem`,
        '-days',
        '1',
        '-extfile',
        `${name}.ext`,
      )
    }
    const relay = await startTestRelay(
      relayConfig(`
services: { up: { url: "${upstream.url}/v1" } }
bundles: { authz: {} }
relay: { agent_auth: { type: mtls, cert: ${pki}/server.pem, private_key: ${pki}/server.key, client_ca: ${pki}/ca.pem } }
`),
      join(dir.dir, 'mtls'),
    )
    const ca = readFileSync(join(pki, 'ca.pem'), 'utf8')
    const withCert = new Agent({
      connect: {
        ca,
        cert: readFileSync(join(pki, 'agent.pem'), 'utf8'),
        key: readFileSync(join(pki, 'agent.key'), 'utf8'),
      },
    })
    const withoutCert = new Agent({ connect: { ca } })
    try {
      expect(relay.url).toMatch(/^https:/)
      await eventually(
        async () => (await request(`${relay.url}/health/ready`, { dispatcher: withCert })).statusCode === 200,
      )
      const ok = await request(`${relay.url}/v1/bundles/authz`, { dispatcher: withCert })
      expect(ok.statusCode).toBe(200)
      await ok.body.dump()
      await expect(request(`${relay.url}/v1/bundles/authz`, { dispatcher: withoutCert })).rejects.toThrow()
    } finally {
      await withCert.close()
      await withoutCert.close()
      await relay.stop()
    }
  })
})
