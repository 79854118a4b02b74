import { existsSync } from 'node:fs'
import { readFile, writeFile } from 'node:fs/promises'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runBuild } from '../../cli/commands/build.js'
import { currentCapabilities } from '../../cli/commands/capabilities.js'
import { REGENT_VERSION } from '../../cli/version-info.js'
import { readBundle, verifyBundle } from '../../core/bundle/index.js'
import { runRegent } from '../support/run-cli.js'
import { BUILD_DEFAULTS, captureIo, tempFolder, writeKeys, writeTree } from './bundle-helpers.js'

let dir: string
let cleanup: () => Promise<void>
let rsa: Awaited<ReturnType<typeof writeKeys>>

beforeAll(async () => {
  ;({ dir, cleanup } = await tempFolder())
  rsa = await writeKeys(dir, 'rsa')
  await writeTree(dir, {
    'authz/.manifest': '{"revision": "from-manifest", "roots": ["authz"], "metadata": {"team": "a"}}',
    'authz/authz/policy.rego': 'package authz\n\nallow if input.user in data.authz.users\n',
    'authz/authz/data.json': '{"users": ["alice"], "price": 2.50, "big": 123456789012345678901234567890}',
    'billing/.manifest': '{"roots": ["billing"]}',
    'billing/billing/policy.rego': 'package billing\n\nlimit := 10\n',
    'clash/.manifest': '{"roots": ["authz/x"]}',
    'clash/authz/x/p.rego': 'package authz.x\n',
    'loose/policies/authz.rego': 'package loose\n',
    'loose/policies/sub/values.json': '{"v": 1.0}',
    'loose/policies/sub/more.yaml': 'w: 2\n',
    'loose/README.md': 'not loaded',
    'loose/top.json': '{"top": true}',
  })
})

afterAll(() => cleanup())

const out = (name: string) => join(dir, name)
const build = (paths: string[], options: Record<string, unknown>) => {
  const io = captureIo()
  return runBuild(
    paths.map((p) => join(dir, p)),
    { ...BUILD_DEFAULTS, ...options } as never,
    io,
  ).then((code) => ({ code, io }))
}

describe('regent build', () => {
  it('builds loose files: modules by path, data placed by sub-folder, other files skipped', async () => {
    const { code, io } = await build(['loose/policies', 'loose/top.json'], { output: out('loose.tar.gz') })
    expect(io.err).toBe('')
    expect(code).toBe(0)
    const bundle = await readBundle(await readFile(out('loose.tar.gz')))
    expect(bundle.modules.map((m) => m.path)).toEqual([expect.stringMatching(/policies\/authz\.rego$/)])
    expect(bundle.data).toEqual({ sub: { v: 1, w: 2 }, top: true })
    expect(bundle.manifest.roots).toEqual([''])
    const sub = bundle.dataFiles.find((f) => f.path === 'sub/data.json')
    // Two sources at one path are combined losslessly (sorted walk: more.yaml, then values.json).
    expect(new TextDecoder().decode(sub?.raw)).toBe('{"w":2,"v":1.0}')
  })

  it('keeps an input .manifest, lets -r override the revision, keeps number lexemes', async () => {
    const { code } = await build(['authz'], { bundle: true, output: out('authz.tar.gz'), revision: 'r42' })
    expect(code).toBe(0)
    const bundle = await readBundle(await readFile(out('authz.tar.gz')))
    expect(bundle.manifest).toEqual({ revision: 'r42', roots: ['authz'], metadata: { team: 'a' } })
    expect(new TextDecoder().decode(bundle.dataFiles[0]?.raw)).toContain('2.50')
    expect(new TextDecoder().decode(bundle.dataFiles[0]?.raw)).toContain('123456789012345678901234567890')
  })

  it('merges bundles with disjoint roots, folders and tarballs alike', async () => {
    await build(['billing'], { bundle: true, output: out('billing.tar.gz') })
    const { code } = await build(['authz', 'billing.tar.gz'], { bundle: true, output: out('merged.tar.gz') })
    expect(code).toBe(0)
    const merged = await readBundle(await readFile(out('merged.tar.gz')))
    expect(merged.manifest.roots).toEqual(['authz', 'billing'])
    expect(merged.modules.map((m) => m.path).sort()).toEqual(['authz/policy.rego', 'billing/policy.rego'])
  })

  it('fails on overlapping roots, naming both bundles', async () => {
    const { code, io } = await build(['authz', 'clash'], { bundle: true, output: out('never.tar.gz') })
    expect(code).toBe(1)
    expect(io.err).toMatch(
      /regent build: bundles .*authz and .*clash have overlapping roots "authz" and "authz\/x"/,
    )
  })

  it('signs the output (RS256 default, kid from --verification-key-id) so it verifies', async () => {
    const claims = join(dir, 'claims.json')
    await writeFile(claims, '{"iss": "ci", "scope": "write"}')
    const { code } = await build(['authz'], {
      bundle: true,
      output: out('signed.tar.gz'),
      signingKey: rsa.privatePath,
      claimsFile: claims,
      verificationKeyId: 'ci-key',
    })
    expect(code).toBe(0)
    const bundle = await readBundle(await readFile(out('signed.tar.gz')))
    await verifyBundle(bundle, { keys: { 'ci-key': { key: rsa.publicPem, scope: 'write' } } })
    const payload = JSON.parse(
      Buffer.from(bundle.signatures!.signatures[0]!.split('.')[1]!, 'base64url').toString(),
    )
    expect(payload.iss).toBe('ci')
    expect(payload.keyid).toBeUndefined()
  })

  it('verifies signed inputs with the --signing-alg algorithm (as OPA), then re-signs the output', async () => {
    const ec = await writeKeys(dir, 'ec')
    const { code, io } = await build(['signed.tar.gz'], {
      bundle: true,
      output: out('resigned.tar.gz'),
      verificationKey: rsa.publicPath,
      verificationKeyId: 'ci-key',
      scope: 'write',
      signingKey: ec.privatePath,
      signingAlg: 'ES256',
    })
    // Verification used --signing-alg (ES256) as OPA does, so the RS256 input fails: same flag for both.
    expect(code).toBe(1)
    expect(io.err).toMatch(/does not verify with key "ci-key" \(ES256\)/)
    const again = await build(['signed.tar.gz'], {
      bundle: true,
      output: out('resigned.tar.gz'),
      verificationKey: rsa.publicPath,
      verificationKeyId: 'ci-key',
      scope: 'write',
      signingKey: rsa.privatePath,
    })
    expect(again.io.err).toBe('')
    expect(again.code).toBe(0)
    const bundle = await readBundle(await readFile(out('resigned.tar.gz')))
    await verifyBundle(bundle, { keys: { 'ci-key': { key: rsa.publicPem } }, keyId: 'ci-key' })
  })

  it('refuses unsigned or tampered inputs when a verification key is given, naming the file', async () => {
    const unsigned = await build(['authz'], {
      bundle: true,
      output: out('x.tar.gz'),
      verificationKey: rsa.publicPath,
    })
    expect(unsigned.code).toBe(1)
    expect(unsigned.io.err).toMatch(/missing \.signatures\.json/)
    await writeTree(dir, {
      'tampered/.signatures.json': '',
      'tampered/authz/policy.rego': 'package authz\nallow := true\n',
    })
    const signed = await readBundle(await readFile(out('signed.tar.gz')))
    await writeTree(dir, {
      'tampered/.signatures.json': JSON.stringify(signed.signatures),
      'tampered/.manifest': new TextDecoder().decode(signed.manifestRaw),
      'tampered/authz/data.json': new TextDecoder().decode(signed.dataFiles[0]?.raw),
    })
    const tampered = await build(['tampered'], {
      bundle: true,
      output: out('x.tar.gz'),
      verificationKey: rsa.publicPath,
      verificationKeyId: 'ci-key',
      scope: 'write',
    })
    expect(tampered.code).toBe(1)
    expect(tampered.io.err).toMatch(/authz\/policy\.rego: digest mismatch/)
  })

  it.each([
    [{ optimize: '3' }, /-O 3: expected an optimisation level 0, 1 or 2/],
    [{ partialNamespace: 'a-b' }, /--partial-namespace a-b: expected a package path/],
    [{ target: 'wasm' }, /-t wasm is not available: regent has no Wasm compiler; build -t rego/],
    [{ target: 'js' }, /-t js is not a target/],
    [{ signingAlg: 'none' }, /--signing-alg none is not supported/],
    [{ claimsFile: 'c.json' }, /--claims-file needs --signing-key/],
  ])('refuses %j as a usage error (exit 2)', async (options, message) => {
    const { code, io } = await build(['authz'], { bundle: true, output: out('never.tar.gz'), ...options })
    expect(code).toBe(2)
    expect(io.err).toMatch(message)
  })

  it('checks --capabilities: a JSON file or a version', async () => {
    const bad = await build(['authz'], {
      bundle: true,
      output: out('c.tar.gz'),
      capabilities: join(dir, 'authz/authz/policy.rego'),
    })
    expect(bad.code).toBe(1)
    expect(bad.io.err).toMatch(/is not a capabilities JSON file/)
    // A version regent has no capabilities for is refused rather than silently ignored.
    const version = await build(['authz'], { bundle: true, output: out('c.tar.gz'), capabilities: 'v0.9.0' })
    expect(version.code).toBe(1)
    expect(version.io.err).toMatch(/--capabilities v0\.9\.0: no capabilities for this version/)
    const own = await build(['authz'], {
      bundle: true,
      output: out('c.tar.gz'),
      capabilities: `v${REGENT_VERSION}`,
    })
    expect(own.code).toBe(0)
  })

  it('refuses a module that does not parse: nothing is written', async () => {
    await writeTree(dir, { 'broken/p.rego': 'package broken\n\nallow if {\n' })
    const { code, io } = await build(['broken'], { output: out('broken.tar.gz') })
    expect(code).toBe(1)
    expect(io.err).toMatch(/broken\/p\.rego:\d+: rego_parse_error/)
    expect(existsSync(out('broken.tar.gz'))).toBe(false)
  })

  it('refuses modules that do not compile, also inside -b bundles, before signing', async () => {
    await writeTree(dir, {
      'unsafe/.manifest': '{"roots": ["unsafe"]}',
      'unsafe/unsafe/p.rego': 'package unsafe\n\nallow if x > 1\n',
    })
    const { code, io } = await build(['unsafe'], {
      bundle: true,
      output: out('unsafe.tar.gz'),
      signingKey: rsa.privatePath,
    })
    expect(code).toBe(1)
    expect(io.err).toMatch(/unsafe\/p\.rego:3: rego_unsafe_var_error: var x is unsafe/)
    expect(existsSync(out('unsafe.tar.gz'))).toBe(false)
  })

  it('enforces --capabilities: a built-in missing from the file fails as OPA fails', async () => {
    const current = currentCapabilities() as { builtins: Array<{ name: string }> }
    const withoutHttp = { ...current, builtins: current.builtins.filter((b) => b.name !== 'http.send') }
    await writeTree(dir, {
      'caps.json': JSON.stringify(withoutHttp),
      'net/p.rego': 'package net\n\nr := http.send({"method": "GET", "url": "http://127.0.0.1:9"})\n',
    })
    const refused = await build(['net'], { output: out('net.tar.gz'), capabilities: out('caps.json') })
    expect(refused.code).toBe(1)
    expect(refused.io.err).toMatch(/net\/p\.rego:3: rego_type_error: undefined function http\.send/)
    expect(existsSync(out('net.tar.gz'))).toBe(false)
    // Without the flag every built-in is known.
    expect((await build(['net'], { output: out('net.tar.gz') })).code).toBe(0)
  })

  it('runs through the regent launcher with the usage exit code for refused targets', async () => {
    const refused = await runRegent(['build', '-t', 'wasm', join(dir, 'authz')])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('-t wasm is not available')
    expect(refused.stderr).not.toContain('rego_') // refused before anything is compiled
    const built = await runRegent(['build', '-b', join(dir, 'authz'), '-o', out('cli.tar.gz')])
    expect(built.stderr).toBe('')
    expect(built.code).toBe(0)
    expect((await readBundle(await readFile(out('cli.tar.gz')))).manifest.revision).toBe('from-manifest')
  })
})
