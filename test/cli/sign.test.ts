import { copyFile, readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runSign } from '../../cli/commands/sign.js'
import { type BundleError, readBundle, verifyBundle, writeBundle } from '../../core/bundle/index.js'
import { captureIo, tempFolder, writeKeys, writeTree } from './bundle-helpers.js'

let dir: string
let cleanup: () => Promise<void>
let rsa: Awaited<ReturnType<typeof writeKeys>>

beforeAll(async () => {
  ;({ dir, cleanup } = await tempFolder())
  rsa = await writeKeys(dir, 'rsa')
  await writeTree(dir, {
    'bundle/.manifest': '{ "revision": "1", "roots": ["authz"], "metadata": {"n": 2.50} }',
    'bundle/authz/policy.rego': 'package authz\n\nallow := true\n',
    'bundle/authz/nested/data.json': '{ "b": [1, 2.50], "a": "x" }',
    'bundle/authz/data.yml': 'k: v\n',
    'bundle/README.md': 'carried file\n',
    'bundle/.signatures.json': '{"signatures": ["stale"]}',
    'out/.keep': '',
  })
})

afterAll(() => cleanup())

const sign = (paths: string[], options: Record<string, unknown>) => {
  const io = captureIo()
  return runSign(
    paths,
    { signingAlg: 'RS256', outputFilePath: join(dir, 'out'), ...options } as never,
    io,
  ).then((code) => ({ code, io }))
}

describe('regent sign', () => {
  it('writes .signatures.json that verifies the folder as a bundle', async () => {
    const { code, io } = await sign([join(dir, 'bundle')], { bundle: true, signingKey: rsa.privatePath })
    expect(code).toBe(0)
    expect(io.err).toContain('5 files signed with RS256')
    const written = await readFile(join(dir, 'out', '.signatures.json'), 'utf8')
    const token = (JSON.parse(written) as { signatures: string[] }).signatures[0]!
    const payload = JSON.parse(Buffer.from(token.split('.')[1]!, 'base64url').toString())
    expect(payload.files.map((f: { name: string }) => f.name)).toEqual([
      'authz/policy.rego',
      'authz/data.yml',
      'authz/nested/data.json',
      '.manifest',
      'README.md',
    ])
    await copyFile(join(dir, 'out', '.signatures.json'), join(dir, 'bundle', '.signatures.json'))
    const config = { keys: { k: { key: rsa.publicPem } }, keyId: 'k' }
    const bundle = await readBundle({ dir: join(dir, 'bundle') }, { verification: config })
    // The same signature holds for the bundle as a tarball.
    await verifyBundle(await readBundle(await writeBundle(bundle)), config)
  })

  it('signs a tarball and adds claims from --claims-file', async () => {
    const tarball = join(dir, 'b.tar.gz')
    const bundle = await readBundle({ dir: join(dir, 'bundle') }).catch((e: BundleError) => {
      throw e
    })
    await writeFile(tarball, await writeBundle({ ...bundle, signatures: undefined }))
    await writeFile(join(dir, 'claims.json'), '{"iss": "pipeline", "scope": "prod"}')
    const { code } = await sign([tarball], {
      bundle: true,
      signingKey: 'an-hmac-secret',
      signingAlg: 'hs384',
      claimsFile: join(dir, 'claims.json'),
    })
    expect(code).toBe(0)
    const signatures = JSON.parse(await readFile(join(dir, 'out', '.signatures.json'), 'utf8'))
    const config = { keys: { k: { key: 'an-hmac-secret', algorithm: 'HS384', scope: 'prod' } }, keyId: 'k' }
    await verifyBundle({ ...bundle, signatures }, config)
  })

  it.each([
    [{ signingKey: 'x' }, /enable bundle mode \(--bundle\)/],
    [{ bundle: true }, /--signing-key is required/],
    [{ bundle: true, signingKey: 'x', signingAlg: 'XS256' }, /--signing-alg XS256 is not supported/],
    [{ bundle: true, signingKey: 'x', signingPlugin: 'p' }, /--signing-plugin is not supported/],
  ])('refuses %j as a usage error', async (options, message) => {
    const { code, io } = await sign([join(dir, 'bundle')], options)
    expect(code).toBe(2)
    expect(io.err).toMatch(message)
  })

  it('reports a missing path and an unusable key as errors (exit 1)', async () => {
    const missing = await sign([join(dir, 'nope')], { bundle: true, signingKey: 'x', signingAlg: 'HS256' })
    expect(missing.code).toBe(1)
    expect(missing.io.err).toMatch(/nope does not exist/)
    // With RS256 a value that names no file can only be a mistyped path.
    const typo = await sign([join(dir, 'bundle')], { bundle: true, signingKey: 'not-a-pem' })
    expect(typo.code).toBe(1)
    expect(typo.io.err).toBe('regent sign: --signing-key: no such file: not-a-pem\n')
    await writeFile(join(dir, 'garbage.pem'), 'not a key')
    const badKey = await sign([join(dir, 'bundle')], { bundle: true, signingKey: join(dir, 'garbage.pem') })
    expect(badKey.code).toBe(1)
    expect(badKey.io.err).toMatch(/signing key is not usable for RS256/)
  })
})
