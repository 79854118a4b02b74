/**
 * The server flags of `regent run -s` as settings (cli/run-options/server.ts): defaults as OPA's,
 * values turned into what the agent acts on, and `unix://` addresses kept apart from TCP ones.
 */
import { describe, expect, it } from 'vitest'
import { runSettings } from '../../cli/commands/run.js'
import { ServerFlagError, serverSettings } from '../../cli/run-options/server.js'

type Flags = Parameters<typeof runSettings>[1]
const base: Flags = {
  server: true,
  addr: [],
  bundle: [],
  ignore: [],
  maxErrors: '10',
  set: [],
  verificationKeyId: 'default',
  signingAlg: 'RS256',
  excludeFilesVerify: [],
}

describe('server flags', () => {
  it('default as OPA: no authentication or authorization, 10 s grace, no wait, socket mode 755', () => {
    expect(serverSettings({})).toEqual({
      authentication: 'off',
      authorizationDecision: undefined,
      tls: undefined,
      diagnosticAddrs: [],
      h2c: false,
      readyTimeoutSeconds: 0,
      graceMs: 10_000,
      waitMs: 0,
      unixSocketPerm: 0o755,
      watch: false,
      logLevel: 'info',
      logFormat: undefined,
      logTimestampFormat: undefined,
      pprof: false,
    })
  })

  it('turns the values into the agent’s settings', () => {
    const s = serverSettings({
      authentication: 'tls',
      authorization: 'basic',
      tlsCertFile: 'c.pem',
      tlsPrivateKeyFile: 'k.pem',
      tlsCaCertFile: 'ca.pem',
      minTlsVersion: '1.3',
      tlsCipherSuites: [
        'TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256,TLS_AES_128_GCM_SHA256',
        'TLS_RSA_WITH_AES_128_CBC_SHA',
      ],
      tlsCertRefreshPeriod: '1m30s',
      diagnosticAddr: [':8282', 'unix:///run/diag.sock'],
      shutdownWaitPeriod: '3',
      unixSocketPerm: '0600',
      logFormat: 'text',
    })
    expect(s.authorizationDecision).toBe('/system/authz/allow')
    expect(s.tls).toEqual({
      certFile: 'c.pem',
      keyFile: 'k.pem',
      caFile: 'ca.pem',
      minVersion: 'TLSv1.3',
      ciphers:
        'TLS_AES_128_GCM_SHA256:TLS_AES_256_GCM_SHA384:TLS_CHACHA20_POLY1305_SHA256:ECDHE-RSA-AES128-GCM-SHA256:AES128-SHA',
      requireClientCert: true,
      refreshMs: 90_000,
    })
    expect(s.diagnosticAddrs).toEqual([
      { kind: 'tcp', host: '0.0.0.0', port: 8282 },
      { kind: 'unix', path: '/run/diag.sock' },
    ])
    expect(s).toMatchObject({ waitMs: 3000, unixSocketPerm: 0o600, logFormat: 'text' })
  })

  it('refuses RC4 suites, which OpenSSL 3 no longer has', () => {
    expect(() =>
      serverSettings({
        tlsCertFile: 'c',
        tlsPrivateKeyFile: 'k',
        tlsCipherSuites: ['TLS_RSA_WITH_RC4_128_SHA'],
      }),
    ).toThrow(ServerFlagError)
  })

  it('keeps unix:// addresses of -a apart from TCP ones', () => {
    const s = runSettings([], { ...base, addr: ['unix:///tmp/agent.sock', '127.0.0.1:0'] })
    expect(s.addrs).toEqual([{ host: '127.0.0.1', port: 0 }])
    expect(s.unixAddrs).toEqual(['unix:///tmp/agent.sock'])
    // Only a unix socket: no TCP listener on the default address.
    expect(runSettings([], { ...base, addr: ['unix:///tmp/a.sock'] }).addrs).toEqual([])
  })
})
