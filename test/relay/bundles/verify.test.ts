import { generateKeyPairSync } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { type Bundle, bundleFromParts, readBundle, writeBundle } from '../../../core/bundle/index.js'
import { resolveTargets, type Target } from '../../../plugins/bundle/targets.js'
import { verifyDownload } from '../../../plugins/bundle/verify.js'
import { makeBundle } from '../../support/fault-upstream.js'
import { relayConfig } from '../helpers.js'

const rsa = () => generateKeyPairSync('rsa', { modulusLength: 2048 })
const pem = (k: ReturnType<typeof rsa>) => ({
  privateKey: k.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
  publicKey: k.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
})
const upstreamKey = pem(rsa())
const otherKey = pem(rsa())

/** The target `authz` of a config with the upstream key as `global` and the given bundle block. */
function target(bundleBlock: string, keys = true): Target {
  const keyBlock = keys
    ? `keys: { global: { key: ${JSON.stringify(upstreamKey.publicKey)}, scope: read } }`
    : ''
  return resolveTargets(
    relayConfig(`services: { up: { url: "http://u" } }\n${keyBlock}\nbundles: { authz: ${bundleBlock} }`),
  )[0]!
}

async function reason(bytes: Uint8Array, t: Target): Promise<string> {
  try {
    await verifyDownload(bytes, t)
  } catch (err) {
    return (err as { reason: string }).reason
  }
  return 'accepted'
}

describe('verifyDownload', () => {
  const signed = (key = upstreamKey.privateKey, scope = 'read') =>
    makeBundle({ revision: 'r1', signingKey: key, keyId: 'global', scope })

  it('accepts a bundle signed by the configured key and returns its revision', async () => {
    const result = await verifyDownload(await signed(), target('{ signing: { keyid: global } }'))
    expect(result.revision).toBe('r1')
  })

  it('accepts a signed bundle through its kid when keys exist but no signing block (as OPA)', async () => {
    expect(await reason(await signed(), target('{}'))).toBe('accepted')
  })

  it('accepts unsigned bundles only when no signing block is configured', async () => {
    const unsigned = await makeBundle({ revision: 'u' })
    expect(await reason(unsigned, target('{}'))).toBe('accepted')
    expect(await reason(unsigned, target('{}', false))).toBe('accepted')
    // Stricter than OPA: a signing block without keyid still requires a signature.
    expect(await reason(unsigned, target('{ signing: {} }'))).toBe('bundle_signature_missing')
    expect(await reason(unsigned, target('{ signing: { keyid: global } }'))).toBe('bundle_signature_missing')
  })

  it('refuses wrong keys, wrong scopes, unknown key ids and signatures with no keys configured', async () => {
    expect(await reason(await signed(otherKey.privateKey), target('{ signing: { keyid: global } }'))).toBe(
      'bundle_signature_invalid',
    )
    expect(
      await reason(await signed(upstreamKey.privateKey, 'write'), target('{ signing: { keyid: global } }')),
    ).toBe('bundle_scope_mismatch')
    expect(await reason(await signed(), target('{ signing: { keyid: nope } }'))).toBe(
      'bundle_verification_key',
    )
    expect(await reason(await signed(), target('{}', false))).toBe('bundle_verification_key')
  })

  it('refuses a bundle whose files changed after signing', async () => {
    const original = await readBundle(await signed())
    const tampered: Bundle = {
      ...original,
      modules: original.modules.map((m) => ({
        ...m,
        source: 'package authz\n\ndefault allow := true\n',
        raw: new TextEncoder().encode('package authz\n\ndefault allow := true\n'),
      })),
    }
    expect(await reason(await writeBundle(tampered), target('{ signing: { keyid: global } }'))).toBe(
      'bundle_digest_mismatch',
    )
  })

  it('refuses non-gzip, truncated, oversized-file and delta bundles', async () => {
    const t = target('{}')
    expect(await reason(new TextEncoder().encode('not a bundle'), t)).toBe('bundle_archive_invalid')
    const good = await makeBundle({ revision: 'r' })
    expect(await reason(good.subarray(0, good.byteLength - 20), t)).toBe('bundle_archive_invalid')
    const big = await makeBundle({ revision: 'r', data: { blob: 'x'.repeat(5000) } })
    expect(await reason(big, target('{ size_limit_bytes: 1000 }'))).toBe('bundle_size_limit')
    const delta = await writeBundle({
      ...bundleFromParts({ modules: {}, manifest: { revision: 'd' } }),
      patch: { data: [{ op: 'upsert', path: '/a', value: 1 }] },
    })
    expect(await reason(delta, t)).toBe('bundle_delta_refused')
  })

  it('verifies HMAC-signed bundles with a shared secret', async () => {
    const bytes = await makeBundle({
      revision: 'h',
      signingKey: 'shared-secret',
      algorithm: 'HS256',
      keyId: 'hmac',
    })
    const t = resolveTargets(
      relayConfig(`
services: { up: { url: "http://u" } }
keys: { hmac: { key: shared-secret, algorithm: HS256 } }
bundles: { authz: { signing: { keyid: hmac } } }
`),
    )[0]!
    expect(await reason(bytes, t)).toBe('accepted')
  })
})
