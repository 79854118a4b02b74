/**
 * A mistyped key or certificate path, in every flag and config key that names one, says
 * "no such file: PATH" with the flag or key, instead of an OpenSSL decoder error.
 */
import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runBuild } from '../../cli/commands/build.js'
import { RunUsageError, runSettings } from '../../cli/commands/run.js'
import { runSign } from '../../cli/commands/sign.js'
import { ServiceClient } from '../../plugins/rest/service-client.js'
import { relayConfigSchema } from '../../relay/config.js'
import { createBundleSigner } from '../../service/bundle-signing.js'
import { runRegent } from '../support/run-cli.js'
import { BUILD_DEFAULTS, captureIo } from './bundle-helpers.js'

const dir = mkdtempSync(join(tmpdir(), 'regent-key-paths-'))
writeFileSync(join(dir, 'p.rego'), 'package p\n\nx := 1\n')
const nope = join(dir, 'nope.pem')

describe('mistyped key paths', () => {
  it('regent sign --signing-key', async () => {
    const io = captureIo()
    const code = await runSign(
      [dir],
      { bundle: true, signingKey: nope, signingAlg: 'RS256', outputFilePath: dir },
      io,
    )
    expect(code).toBe(1)
    expect(io.err).toBe(`regent sign: --signing-key: no such file: ${nope}\n`)
  })

  it('regent build --signing-key and --verification-key', async () => {
    for (const flag of ['signingKey', 'verificationKey'] as const) {
      const io = captureIo()
      const options = { ...BUILD_DEFAULTS, output: join(dir, 'out.tar.gz'), [flag]: nope }
      expect(await runBuild([join(dir, 'p.rego')], options as never, io)).toBe(1)
      const name = flag === 'signingKey' ? '--signing-key' : '--verification-key'
      expect(io.err).toBe(`regent build: ${name}: no such file: ${nope}\n`)
    }
  })

  it('regent run --verification-key: a usage error naming the flag', () => {
    const flags = {
      server: true,
      addr: [],
      bundle: [join(dir, 'b.tar.gz')],
      ignore: [],
      logLevel: 'info',
      shutdownGracePeriod: '10',
      maxErrors: '10',
      set: [],
      verificationKey: nope,
      verificationKeyId: 'default',
      signingAlg: 'RS256',
      excludeFilesVerify: [],
      authentication: 'off',
      authorization: 'off',
    }
    expect(() => runSettings([], flags as never)).toThrow(
      new RunUsageError(`--verification-key: no such file: ${nope}`),
    )
  })

  it('service.bundles.signing.key_file', () => {
    expect(() => createBundleSigner({ key_file: nope, algorithm: 'RS256', key_id: 'k' } as never)).toThrow(
      `service.bundles.signing.key_file: no such file: ${nope}`,
    )
  })

  it('services.<name>.tls.ca_cert and credentials.client_tls of the relay config', () => {
    const config = relayConfigSchema.parse({
      services: {
        up: {
          url: 'http://127.0.0.1:9',
          credentials: { client_tls: { cert: nope, private_key: nope } },
        },
      },
    })
    expect(() => new ServiceClient('up', config.services.up!)).toThrow(
      `services.up.credentials.client_tls.cert: no such file: ${nope}`,
    )
  })

  it('keys.<id>.key of the relay config holds the PEM itself: a path is refused by name', () => {
    const parsed = relayConfigSchema.safeParse({ keys: { upstream: { key: './keys/public.pem' } } })
    expect(parsed.success).toBe(false)
    expect(parsed.error?.issues[0]).toMatchObject({
      path: ['keys', 'upstream', 'key'],
      message: expect.stringMatching(/expected the PEM text of the public key itself/),
    })
    expect(relayConfigSchema.safeParse({ keys: { h: { key: 'secret', algorithm: 'HS256' } } }).success).toBe(
      true,
    )
  })

  it('relay.agent_auth (mtls) files, through regent relay', async () => {
    const file = join(dir, 'relay.yaml')
    writeFileSync(
      file,
      `relay:\n  addr: 127.0.0.1:0\n  storage:\n    dir: ${join(dir, 'storage')}\n  agent_auth:\n    type: mtls\n    cert: ${nope}\n    private_key: ${nope}\n    client_ca: ${nope}\n`,
    )
    const r = await runRegent(['relay', '-c', file])
    expect(r.code).toBe(1)
    expect(r.stderr).toContain(`regent relay: relay.agent_auth.cert: no such file: ${nope}`)
  }, 30_000)
})
