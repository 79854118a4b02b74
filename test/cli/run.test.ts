/**
 * `regent run`: flag checks (as settings, and as exit code 2 from the real CLI), load failures
 * (exit 1 with the parse error), and bundle signature verification with real RSA keys.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { DEFAULT_RUN_ADDR, RunUsageError, runSettings } from '../../cli/commands/run.js'
import { bundleFromParts, signBundle, writeBundle } from '../../core/bundle/index.js'
import { startRegent } from '../relay/support/processes.js'
import { runRegent } from '../support/run-cli.js'
import { writeKeys } from './bundle-helpers.js'

type Flags = Parameters<typeof runSettings>[1]

const defaults: Flags = {
  server: true,
  addr: [],
  bundle: [],
  ignore: [],
  logLevel: 'info',
  shutdownGracePeriod: '10',
  maxErrors: '10',
  set: [],
  verificationKeyId: 'default',
  signingAlg: 'RS256',
  excludeFilesVerify: [],
  authentication: 'off',
  authorization: 'off',
}

const settings = (paths: string[], flags: Partial<Flags> = {}) =>
  runSettings(paths, { ...defaults, ...flags })

describe('regent run flags', () => {
  it('defaults to localhost:8181, v1 syntax, 10 s grace and system/main', () => {
    const s = settings(['p.rego'])
    expect(DEFAULT_RUN_ADDR).toBe('localhost:8181')
    expect(s.addrs).toEqual([{ host: 'localhost', port: 8181 }])
    expect(s).toMatchObject({ files: ['p.rego'], bundles: [], regoVersion: 'v1', graceMs: 10_000 })
    expect(s.defaultDecision).toBe('system/main')
  })

  it('binds every address given; ":PORT" and --v0-compatible mean every interface', () => {
    expect(settings([], { addr: ['127.0.0.1:0', ':9000', '[::1]:9001'] }).addrs).toEqual([
      { host: '127.0.0.1', port: 0 },
      { host: '0.0.0.0', port: 9000 },
      { host: '::1', port: 9001 },
    ])
    const v0 = settings([], { v0Compatible: true })
    expect(v0.addrs).toEqual([{ host: '0.0.0.0', port: 8181 }])
    expect(v0.regoVersion).toBe('v0')
  })

  it('loads -b values, positional tarballs, and every path with a bare -b as bundles', () => {
    const mixed = settings(['p.rego', 'b.tar.gz', 'data.json'], { bundle: ['dir'] })
    expect(mixed.bundles).toEqual(['dir', 'b.tar.gz'])
    expect(mixed.files).toEqual(['p.rego', 'data.json'])
    const bare = settings(['one', 'two'], { bundle: true })
    expect(bare).toMatchObject({ bundles: ['one', 'two'], files: [] })
  })

  it('reads --set default_decision in slash or dotted form', () => {
    expect(settings([], { set: ['default_decision=/authz/allow'] }).defaultDecision).toBe('authz/allow')
    expect(settings([], { set: ['default_decision=data.authz.allow'] }).defaultDecision).toBe('authz/allow')
  })

  it.each([
    [{ authentication: 'tls' }, '--authentication tls needs --tls-cert-file'],
    [{ tlsCertFile: 'c.pem' }, '--tls-cert-file and --tls-private-key-file must be given together'],
    [{ tlsCaCertFile: 'ca.pem' }, '--tls-ca-cert-file needs --tls-cert-file'],
    [
      { tlsCertFile: 'c.pem', tlsPrivateKeyFile: 'k.pem', tlsCipherSuites: ['TLS_FAKE_WITH_NOTHING'] },
      'unknown cipher suite "TLS_FAKE_WITH_NOTHING"',
    ],
    [{ tlsCertFile: 'c.pem', tlsPrivateKeyFile: 'k.pem', tlsCertRefreshPeriod: 'soon' }, 'invalid duration'],
    [{ unixSocketPerm: 'rwx' }, '--unix-socket-perm: expected an octal file mode'],
    [{ addr: ['unix://'] }, 'expected unix:///path/to/socket'],
    [{ diagnosticAddr: ['nope'] }, '--diagnostic-addr: invalid address'],
    [{ shutdownWaitPeriod: '1.5' }, '--shutdown-wait-period: expected a non-negative integer'],
    [{ configFile: '/nonexistent/c.yaml' }, '/nonexistent/c.yaml: invalid configuration'],
    [
      { set: ['decision_logs.reporting.min_delay_seconds=soon'] },
      'decision_logs.reporting.min_delay_seconds: expected a positive integer',
    ],
    [{ addr: ['nope'] }, '--addr: invalid address'],
    [{ shutdownGracePeriod: '-1' }, '--shutdown-grace-period: expected a non-negative integer'],
    [{ set: ['decision_logs.plugin=p'] }, 'decision_logs.plugin: custom plugins are not supported'],
  ] as Array<[Partial<Flags>, string]>)('refuses %j', (flags, message) => {
    expect(() => settings([], flags)).toThrow(RunUsageError)
    expect(() => settings([], flags)).toThrow(message)
  })

  it('builds the verification config from a key file, and skips it with --skip-verify', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'regent-run-flags-'))
    try {
      const keyFile = join(dir, 'key.pem')
      await writeFile(keyFile, '-----BEGIN PUBLIC KEY-----\nabc\n-----END PUBLIC KEY-----\n')
      const s = settings([], { bundle: ['b'], verificationKey: keyFile, scope: 'write' })
      expect(s.verification).toEqual({
        keys: {
          default: { key: '-----BEGIN PUBLIC KEY-----\nabc\n-----END PUBLIC KEY-----\n', algorithm: 'RS256' },
        },
        keyId: 'default',
        scope: 'write',
      })
      expect(
        settings([], { bundle: ['b'], verificationKey: 'secret', signingAlg: 'HS256' }).verification?.keys,
      ).toEqual({ default: { key: 'secret', algorithm: 'HS256' } })
      expect(
        settings([], { bundle: ['b'], verificationKey: keyFile, skipVerify: true }).verification,
      ).toBeUndefined()
    } finally {
      await rm(dir, { recursive: true, force: true })
    }
  })
})

// Each case is its own process: run them side by side.
describe.concurrent('regent run (process)', () => {
  let dir: string
  let keys: Awaited<ReturnType<typeof writeKeys>>
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'regent-run-cli-'))
    keys = await writeKeys(dir)
    const bundle = bundleFromParts({ modules: { 'authz/p.rego': 'package authz\n\nallow := true\n' } })
    await writeFile(join(dir, 'unsigned.tar.gz'), await writeBundle(bundle))
    await writeFile(
      join(dir, 'signed.tar.gz'),
      await writeBundle(await signBundle(bundle, { key: await readFile(keys.privatePath, 'utf8') })),
    )
    await writeFile(join(dir, 'broken.rego'), 'package broken\n\nallow if {\n')
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('starts the interactive shell without -s, and exits 0 at the end of its input', async () => {
    const repl = await runRegent(['run'], { stdin: '1 + 1\n' })
    expect(repl).toMatchObject({ code: 0, stdout: '2\n', stderr: '' })
  })

  it('exits 1 naming the parse error when a policy does not load', async () => {
    const res = await runRegent(['run', '-s', '-a', '127.0.0.1:0', join(dir, 'broken.rego')])
    expect(res.code).toBe(1)
    expect(res.stderr).toContain('rego_parse_error')
    expect(res.stderr).toContain('broken.rego')
  })

  it('refuses an unsigned bundle when a verification key is given', async () => {
    const unsigned = await runRegent([
      'run',
      '-s',
      '-a',
      '127.0.0.1:0',
      '--verification-key',
      keys.publicPath,
      '-b',
      join(dir, 'unsigned.tar.gz'),
    ])
    expect(unsigned.code).toBe(1)
    expect(unsigned.stderr).toContain(`bundle ${join(dir, 'unsigned.tar.gz')}`)
  })

  it('serves a bundle whose signature verifies', async () => {
    const server = await startRegent([
      'run',
      '-s',
      '-a',
      '127.0.0.1:0',
      '--verification-key',
      keys.publicPath,
      '-b',
      join(dir, 'signed.tar.gz'),
    ])
    try {
      const res = await fetch(`${server.url}/v1/data/authz/allow`)
      expect(await res.json()).toEqual({ result: true })
    } finally {
      expect(await server.stop()).toBe(0)
    }
  })
})
