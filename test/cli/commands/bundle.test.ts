/**
 * `regent bundle convert` and `bundle dump` as a user runs them: the converted bundle is a
 * gzipped tarball whose data.json is binary JSON, `dump` prints its data, and the binary bundle
 * loads in `eval -b` and `run -s -b` with the same answers as the tarball it came from.
 */
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { isBinaryJson, readBundle, readBundleFiles, writeBundle } from '../../../core/bundle/index.js'
import { startRegent } from '../../relay/support/processes.js'
import { runRegent } from '../../support/run-cli.js'

let dir: string
const DATA = { users: { alice: { roles: ['admin'], id: 1 } }, limit: 2.5 }

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'regent-bundle-'))
  mkdirSync(join(dir, 'src', 'roles'), { recursive: true })
  writeFileSync(
    join(dir, 'src', 'authz.rego'),
    'package authz\n\nallow if "admin" in data.users[input.user].roles\n\nextra := data.roles.extra\n',
  )
  // Digits past a double's precision must survive the conversion.
  writeFileSync(
    join(dir, 'src', 'data.json'),
    JSON.stringify(DATA).replace('"id":1', '"id":12345678901234567890'),
  )
  writeFileSync(join(dir, 'src', 'roles', 'data.yaml'), 'extra: [a, b]\n')
  writeFileSync(
    join(dir, 'src', '.manifest'),
    JSON.stringify({ revision: 'r7', roots: ['authz', 'users', 'limit', 'roles'] }),
  )
  // The tarball is written in-process; only the commands under test start processes (each costs seconds).
  writeFileSync(join(dir, 'bundle.tar.gz'), await writeBundle(await readBundle({ dir: join(dir, 'src') })))
  writeFileSync(join(dir, 'input.json'), '{"user": "alice"}')
  const converted = await runRegent([
    'bundle',
    'convert',
    join(dir, 'bundle.tar.gz'),
    join(dir, 'binary.tar.gz'),
  ])
  expect(converted.code, converted.stderr).toBe(0)
}, 30_000)

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('regent bundle convert / dump', () => {
  it('converts a tarball to a binary bundle that dump prints', async () => {
    const out = join(dir, 'binary.tar.gz')
    const files = await readBundleFiles(readFileSync(out))
    expect(files.map((f) => f.path).sort()).toEqual(['.manifest', 'authz.rego', 'data.json'])
    expect(isBinaryJson(files.find((f) => f.path === 'data.json')!.raw)).toBe(true)
    const dumped = await runRegent(['bundle', 'dump', out])
    expect(dumped.code).toBe(0)
    expect(dumped.stdout).toContain('"id":12345678901234567890')
    expect(JSON.parse(dumped.stdout)).toMatchObject({ limit: 2.5, roles: { extra: ['a', 'b'] } })
  })

  it('refuses to dump a bundle that is not binary, or convert a missing one (exit 1)', async () => {
    const out = join(dir, 'other.tar.gz')
    const [plain, missing, usage] = await Promise.all([
      runRegent(['bundle', 'dump', join(dir, 'bundle.tar.gz')]),
      runRegent(['bundle', 'convert', join(dir, 'nope.tar.gz'), out]),
      runRegent(['bundle', 'convert', join(dir, 'bundle.tar.gz')]),
    ])
    expect(plain.code).toBe(1)
    expect(plain.stderr).toContain('not a binary bundle')
    expect(missing.code).toBe(1)
    expect(usage.code).toBe(2)
  })

  it('loads the binary bundle in eval -b with the same results as the tarball', async () => {
    const out = join(dir, 'binary.tar.gz')
    const query = ['eval', '-f', 'json', '-i', join(dir, 'input.json'), 'data.authz']
    const [fromTar, fromBinary] = await Promise.all([
      runRegent([...query, '-b', join(dir, 'bundle.tar.gz')]),
      runRegent([...query, '-b', out]),
    ])
    expect(fromBinary.code).toBe(0)
    expect(JSON.parse(fromBinary.stdout)).toEqual(JSON.parse(fromTar.stdout))
    expect(JSON.parse(fromBinary.stdout).result[0].expressions[0].value).toEqual({
      allow: true,
      extra: ['a', 'b'],
    })
  })

  it('serves the binary bundle from run -s -b', async () => {
    const out = join(dir, 'binary.tar.gz')
    const server = await startRegent(['run', '-s', '-a', '127.0.0.1:0', '-b', out])
    try {
      const res = await fetch(`${server.url}/v1/data/authz/allow`, {
        method: 'POST',
        body: JSON.stringify({ input: { user: 'alice' } }),
      })
      expect(await res.json()).toEqual({ result: true })
      const id = await fetch(`${server.url}/v1/data/users/alice/id`)
      expect(await id.text()).toContain('12345678901234567890')
    } finally {
      expect(await server.stop()).toBe(0)
    }
  })
})
