import { createHash, generateKeyPairSync } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { canonicalJson } from '../../../core/bundle/canonical-json.js'
import { signedFiles } from '../../../core/bundle/file-list.js'
import {
  type Bundle,
  BundleError,
  bundleFromParts,
  readBundle,
  signBundle,
  verifyBundle,
  writeBundle,
} from '../../../core/bundle/index.js'
import { SIGNING_ALGORITHMS } from '../../../core/bundle/keys.js'
import { fileInfos, signFiles } from '../../../core/bundle/sign.js'
import { keyPairFor, tarGzOf } from './fixtures.js'

const encoder = new TextEncoder()

function sampleBundle(): Bundle {
  return bundleFromParts({
    modules: { 'authz/policy.rego': 'package authz\n\nallow if input.user == "alice"\n' },
    data: { authz: { users: ['alice'], limit: 2.5 } },
    manifest: { revision: 'r1', roots: ['authz'] },
  })
}

async function expectCode(promise: Promise<unknown>, code: string, message: RegExp): Promise<void> {
  const err = await promise.then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(BundleError)
  expect((err as BundleError).code).toBe(code)
  expect((err as BundleError).message).toMatch(message)
}

describe('signBundle + verifyBundle: every algorithm with real keys', () => {
  it.each(SIGNING_ALGORITHMS.map((alg) => [alg]))(
    '%s signs and verifies, also after a tarball round trip',
    async (alg) => {
      const keys = keyPairFor(alg)
      const signed = await signBundle(sampleBundle(), { key: keys.privatePem, algorithm: alg, keyId: 'k1' })
      const config = { keys: { k1: { key: keys.publicPem, algorithm: alg } } }
      await verifyBundle(signed, config)
      const reread = await readBundle(await writeBundle(signed), { verification: config })
      expect(reread.signatures?.signatures).toEqual(signed.signatures?.signatures)
    },
  )

  it('lists files in OPA order with keyid and kid', async () => {
    const keys = keyPairFor('RS256')
    const signed = await signBundle(sampleBundle(), { key: keys.privatePem, keyId: 'global' })
    const [token] = signed.signatures!.signatures
    const [header, payload] = token!
      .split('.')
      .slice(0, 2)
      .map((p) => JSON.parse(Buffer.from(p, 'base64url').toString()))
    expect(header).toEqual({ alg: 'RS256', kid: 'global' })
    expect(payload.keyid).toBe('global')
    expect(payload.files.map((f: { name: string }) => f.name)).toEqual([
      'authz/policy.rego',
      'data.json',
      '.manifest',
    ])
    const dataHash = createHash('sha256').update('{"authz":{"limit":2.5,"users":["alice"]}}').digest('hex')
    expect(payload.files[1]).toEqual({ name: 'data.json', hash: dataHash, algorithm: 'SHA-256' })
  })

  it('accepts PKCS#1 RSA and SEC1 EC private keys, and PKCS#1 public keys', async () => {
    const rsa = generateKeyPairSync('rsa', { modulusLength: 2048 })
    const signed = await signBundle(sampleBundle(), {
      key: rsa.privateKey.export({ type: 'pkcs1', format: 'pem' }).toString(),
      keyId: 'k',
    })
    await verifyBundle(signed, {
      keys: { k: { key: rsa.publicKey.export({ type: 'pkcs1', format: 'pem' }).toString() } },
    })
    const ec = generateKeyPairSync('ec', { namedCurve: 'prime256v1' })
    const ecSigned = await signBundle(sampleBundle(), {
      key: ec.privateKey.export({ type: 'sec1', format: 'pem' }).toString(),
      algorithm: 'ES256',
      keyId: 'k',
    })
    const spki = ec.publicKey.export({ type: 'spki', format: 'pem' }).toString()
    await verifyBundle(ecSigned, { keys: { k: { key: spki, algorithm: 'ES256' } } })
  })

  it('verifies every hash algorithm OPA accepts', async () => {
    const keys = keyPairFor('HS256')
    const bundle = sampleBundle()
    for (const algorithm of [
      'MD5',
      'SHA-1',
      'SHA-224',
      'SHA-256',
      'SHA-384',
      'SHA-512',
      'SHA-512-224',
      'SHA-512-256',
    ]) {
      const token = await signFiles(fileInfos(signedFiles(bundle), algorithm), {
        key: keys.privatePem,
        algorithm: 'HS256',
      })
      await verifyBundle(
        { ...bundle, signatures: { signatures: [token] } },
        { keys: { k: { key: keys.publicPem, algorithm: 'HS256' } }, keyId: 'k' },
      )
    }
  })
})

describe('verifyBundle failure modes, each with its own error', () => {
  const keys = keyPairFor('ES256')
  const config = { keys: { k1: { key: keys.publicPem, algorithm: 'ES256' } } }
  const sign = (bundle: Bundle, extra: { scope?: string } = {}) =>
    signBundle(bundle, { key: keys.privatePem, algorithm: 'ES256', keyId: 'k1', ...extra })

  it('a listed file missing from the bundle', async () => {
    const signed = await sign(sampleBundle())
    const missing = { ...signed, modules: [] }
    await expectCode(verifyBundle(missing, config), 'bundle_file_missing', /authz\/policy\.rego/)
  })

  it('a file in the bundle that the signature does not list', async () => {
    const signed = await sign(sampleBundle())
    const extra = { ...signed, files: [{ path: 'notes/README.md', raw: encoder.encode('hi') }] }
    await expectCode(verifyBundle(extra, config), 'bundle_file_unsigned', /notes\/README\.md/)
    await verifyBundle(extra, { ...config, excludeFiles: ['notes/*.md'] })
  })

  it('a file whose content changed', async () => {
    const signed = await sign(sampleBundle())
    const source = 'package authz\n\nallow := true\n'
    const tampered = {
      ...signed,
      modules: [{ path: 'authz/policy.rego', source, raw: encoder.encode(source) }],
    }
    await expectCode(
      verifyBundle(tampered, config),
      'bundle_digest_mismatch',
      /authz\/policy\.rego: digest mismatch/,
    )
  })

  it('a signature made with another key', async () => {
    const other = keyPairFor('ES256')
    const signed = await signBundle(sampleBundle(), {
      key: other.privatePem,
      algorithm: 'ES256',
      keyId: 'k1',
    })
    await expectCode(
      verifyBundle(signed, config),
      'bundle_signature_invalid',
      /does not verify with key "k1"/,
    )
  })

  it('a scope that differs from the configured one', async () => {
    const signed = await sign(sampleBundle(), { scope: 'write' })
    await expectCode(
      verifyBundle(signed, { ...config, scope: 'read' }),
      'bundle_scope_mismatch',
      /"write".*"read"/,
    )
    await verifyBundle(signed, { ...config, scope: 'write' })
    await verifyBundle(signed, { keys: { k1: { ...config.keys.k1, scope: 'write' } } })
    await expectCode(verifyBundle(signed, config), 'bundle_scope_mismatch', /"write"/)
  })

  it('no .signatures.json when a key id is required, but not otherwise', async () => {
    await expectCode(
      verifyBundle(sampleBundle(), { ...config, keyId: 'k1' }),
      'bundle_signature_missing',
      /\.signatures\.json/,
    )
    await verifyBundle(sampleBundle(), config)
  })

  it('two JWTs', async () => {
    const signed = await sign(sampleBundle())
    const token = signed.signatures!.signatures[0]!
    const twice = { ...signed, signatures: { signatures: [token, token] } }
    await expectCode(verifyBundle(twice, config), 'bundle_signature_multiple', /2 JWTs/)
  })

  it('an unknown key id', async () => {
    const signed = await signBundle(sampleBundle(), {
      key: keys.privatePem,
      algorithm: 'ES256',
      keyId: 'nope',
    })
    await expectCode(verifyBundle(signed, config), 'bundle_verification_key', /"nope" not found/)
  })

  it('takes the algorithm from the key configuration, not from the token', async () => {
    // Classic confusion attack: an HS256 token keyed with the RSA public key's PEM text.
    const rsa = keyPairFor('RS256')
    const forged = await signBundle(sampleBundle(), { key: rsa.publicPem, algorithm: 'HS256', keyId: 'r' })
    await expectCode(
      verifyBundle(forged, { keys: { r: { key: rsa.publicPem } } }),
      'bundle_signature_invalid',
      /RS256/,
    )
  })

  it('never verifies delta bundles', async () => {
    const delta: Bundle = {
      ...sampleBundle(),
      modules: [],
      dataFiles: [],
      data: {},
      patch: { data: [{ op: 'upsert', path: '/authz/x', value: 1 }] },
    }
    await verifyBundle({ ...delta, signatures: { signatures: ['not-a-jwt'] } }, { ...config, keyId: 'k1' })
  })
})

describe('digests of tarballs written by other tools', () => {
  it('matches canonical digests for nested data and ./ or / prefixed names', async () => {
    const keys = keyPairFor('HS512')
    const data = '{ "b": [1, 2.50], "a": "x\u2028" }'
    const manifest = '{"roots": ["a", "x"], "revision": "7", "metadata": {"n": 1.50}}'
    const module = 'package x.y\n'
    const files = [
      { name: './a/b/data.json', hash: hex(canonicalJson(encoder.encode(data))) },
      { name: '/x/policy.rego', hash: hex(encoder.encode(module)) },
      { name: '.manifest', hash: hex(canonicalJson(encoder.encode(manifest))) },
    ]
    expect(Buffer.from(canonicalJson(encoder.encode(data))).toString()).toBe('{"a":"x\\u2028","b":[1,2.50]}')
    const token = await signFiles(
      files.map((f) => ({ name: f.name, hash: f.hash, algorithm: 'SHA-256' })),
      { key: keys.privatePem, algorithm: 'HS512' },
    )
    const tarball = await tarGzOf([
      { name: './.signatures.json', body: JSON.stringify({ signatures: [token] }) },
      { name: './a/b/data.json', body: data },
      { name: '/x/policy.rego', body: module },
      { name: '.manifest', body: manifest },
    ])
    const bundle = await readBundle(tarball, {
      verification: { keys: { k: { key: keys.publicPem, algorithm: 'HS512' } }, keyId: 'k' },
    })
    expect(bundle.data).toEqual({ a: { b: { a: 'x\u2028', b: [1, 2.5] } } })
    // Writing it back keeps the manifest bytes, so the signature still holds.
    await readBundle(await writeBundle(bundle), {
      verification: { keys: { k: { key: keys.publicPem, algorithm: 'HS512' } }, keyId: 'k' },
    })
  })

  it('hashes data.yaml over canonical JSON and data.yml over raw bytes', async () => {
    const { fileDigest } = await import('../../../core/bundle/hashing.js')
    const yaml = 'b: 2.50\na: yes\nc: 12345678901234567890\nd: 2001-12-14\n'
    const canonical = '{"a":true,"b":2.5,"c":12345678901234567890,"d":"2001-12-14"}'
    expect(fileDigest('p/data.yaml', encoder.encode(yaml), 'SHA-256').toString('hex')).toBe(
      createHash('sha256').update(canonical).digest('hex'),
    )
    expect(fileDigest('p/data.yml', encoder.encode(yaml), 'SHA-256').toString('hex')).toBe(
      createHash('sha256').update(yaml).digest('hex'),
    )
  })
})

function hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}
