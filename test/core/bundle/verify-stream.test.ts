import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import {
  archiveLimits,
  type Bundle,
  BundleError,
  bundleFromParts,
  readBundle,
  signBundle,
  type VerificationConfig,
  verifyBundle,
  verifyTarball,
  writeBundle,
} from '../../../core/bundle/index.js'
import { headerBlock, keyPairFor, tarGzOf } from './fixtures.js'

const encoder = new TextEncoder()
const keys = keyPairFor('ES256')
const config: VerificationConfig = { keys: { k1: { key: keys.publicPem, algorithm: 'ES256' } } }
const sign = (bundle: Bundle, extra: { scope?: string; key?: string } = {}) =>
  signBundle(bundle, { key: extra.key ?? keys.privatePem, algorithm: 'ES256', keyId: 'k1', ...extra })

function sample(): Bundle {
  return bundleFromParts({
    modules: { 'authz/policy.rego': 'package authz\n\nallow if input.user == "alice"\n' },
    data: { authz: { users: ['alice'], limit: 2.5 } },
    manifest: { revision: 'r1', roots: ['authz'] },
  })
}

async function outcome(run: () => Promise<unknown>): Promise<string> {
  try {
    await run()
    return 'ok'
  } catch (err) {
    if (err instanceof BundleError) return err.code
    throw err
  }
}

describe('verifyTarball agrees with verifyBundle on the typed bundle', () => {
  const other = keyPairFor('ES256')
  const source = 'package authz\n\nallow := true\n'
  const cases: Array<[string, () => Promise<Bundle>, VerificationConfig, string]> = [
    ['a valid signature', () => sign(sample()), config, 'ok'],
    [
      'a changed module',
      async () => ({
        ...(await sign(sample())),
        modules: [{ path: 'authz/policy.rego', source, raw: encoder.encode(source) }],
      }),
      config,
      'bundle_digest_mismatch',
    ],
    [
      'an unlisted file',
      async () => ({
        ...(await sign(sample())),
        files: [{ path: 'notes/README.md', raw: encoder.encode('hi') }],
      }),
      config,
      'bundle_file_unsigned',
    ],
    [
      'an unlisted file that is excluded',
      async () => ({
        ...(await sign(sample())),
        files: [{ path: 'notes/README.md', raw: encoder.encode('hi') }],
      }),
      { ...config, excludeFiles: ['notes/*.md'] },
      'ok',
    ],
    [
      'a listed file missing',
      async () => ({ ...(await sign(sample())), modules: [] }),
      config,
      'bundle_file_missing',
    ],
    ['another key', () => sign(sample(), { key: other.privatePem }), config, 'bundle_signature_invalid'],
    [
      'another scope',
      () => sign(sample(), { scope: 'write' }),
      { ...config, scope: 'read' },
      'bundle_scope_mismatch',
    ],
    [
      'no signature, key id required',
      async () => sample(),
      { ...config, keyId: 'k1' },
      'bundle_signature_missing',
    ],
    ['no signature, none required', async () => sample(), config, 'ok'],
    [
      'changed data',
      async () => ({
        ...(await sign(sample())),
        dataFiles: [{ path: 'data.json', raw: encoder.encode('{"authz": {"users": ["mallory"]}}') }],
      }),
      config,
      'bundle_digest_mismatch',
    ],
  ]

  it.each(cases)('%s', async (_name, make, verification, expected) => {
    const tarball = await writeBundle(await make())
    const streamed = await outcome(() => verifyTarball(tarball, verification, archiveLimits()))
    const typed = await outcome(async () => verifyBundle(await readBundle(tarball), verification))
    expect([streamed, typed]).toEqual([expected, expected])
  })

  it('names what it found: verified, unsigned, or deferred for a bundle with a patch', async () => {
    expect(await verifyTarball(await writeBundle(await sign(sample())), config, archiveLimits())).toBe(
      'verified',
    )
    expect(await verifyTarball(await writeBundle(sample()), config, archiveLimits())).toBe('unsigned')
    const patched = await tarGzOf([
      { name: 'patch.json', body: '{"data": [{"op": "upsert", "path": "/x", "value": 1}]}' },
    ])
    expect(await verifyTarball(patched, { ...config, keyId: 'k1' }, archiveLimits())).toBe('deferred')
  })
})

describe('the inflated-size bound', () => {
  it('refuses a file that declares more than the default 64 MiB at its header', async () => {
    // 900 MiB declared; the archive itself is a few KiB, and nothing past the header is inflated.
    const bomb = gzipSync(
      Buffer.concat([headerBlock('data.json', 900 * 1024 * 1024), Buffer.alloc(64 * 1024)]),
    )
    const err = await readBundle(bomb).catch((e: unknown) => e)
    expect(err).toBeInstanceOf(BundleError)
    expect((err as BundleError).code).toBe('bundle_size_limit')
    expect((err as BundleError).message).toBe(
      'bundle inflates to more than 67108864 bytes (entry "data.json" declares more than the rest allows)',
    )
  })

  it('is set by maxInflatedBytes, for readBundle and verifyTarball alike', async () => {
    const tarball = await tarGzOf([{ name: 'zeros.bin', body: Buffer.alloc(2 * 1024 * 1024) }])
    expect((await readBundle(tarball)).files).toHaveLength(1)
    const limits = archiveLimits({ maxInflatedBytes: 1024 * 1024 })
    for (const attempt of [
      () => readBundle(tarball, { maxInflatedBytes: 1024 * 1024 }),
      () => verifyTarball(tarball, config, limits),
    ]) {
      const err = await attempt().catch((e: unknown) => e)
      expect((err as BundleError).code).toBe('bundle_size_limit')
    }
  })
})
