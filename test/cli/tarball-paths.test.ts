/**
 * A `.tar.gz` named without `-b` is a bundle, as OPA's loader reads it, in `regent eval -d`,
 * `regent test` and `regent check`; before, it was read as text. Inside folders tarballs are
 * skipped (docs/cli.md says why).
 */
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { beforeAll, describe, expect, it } from 'vitest'
import { bundleFromFiles, writeBundle } from '../../core/bundle/index.js'
import { runRegent } from '../support/run-cli.js'

const dir = mkdtempSync(join(tmpdir(), 'regent-tarball-paths-'))
const text = (s: string) => new TextEncoder().encode(s)
const tarball = join(dir, 'authz.tar.gz')
const nested = join(dir, 'nested')

beforeAll(async () => {
  const bundle = bundleFromFiles([
    { path: 'authz/policy.rego', raw: text('package authz\n\nallow if input.user in data.authz.users\n') },
    {
      path: 'authz/policy_test.rego',
      raw: text('package authz\n\ntest_alice if allow with input.user as "alice"\n'),
    },
    { path: 'authz/data.json', raw: text('{"users": ["alice"]}') },
  ])
  writeFileSync(tarball, await writeBundle(bundle))
  mkdirSync(nested)
  writeFileSync(join(nested, 'authz.tar.gz'), await writeBundle(bundle))
  writeFileSync(
    join(dir, 'broken.tar.gz'),
    await writeBundle(bundleFromFiles([{ path: 'x.rego', raw: text('package x\n\np if {\n') }])),
  )
})

describe('.tar.gz paths without -b', () => {
  it('regent eval -d reads a named tarball as a bundle (modules and data)', async () => {
    const r = await runRegent(['eval', '-f', 'raw', '-d', tarball, '-I', 'data.authz.allow'], {
      stdin: '{"user": "alice"}',
    })
    expect(r.stderr).toBe('')
    expect([r.code, r.stdout]).toEqual([0, 'true\n'])
  })

  it('regent eval -d skips a tarball inside a folder (regent build writes one there)', async () => {
    const r = await runRegent(['eval', '-f', 'json', '-d', nested, 'data.authz.users'])
    expect(r.stderr).toBe('')
    expect([r.code, r.stdout.trim()]).toEqual([0, '{}'])
  })

  it('regent test runs the tests inside a tarball', async () => {
    const r = await runRegent(['test', tarball])
    expect(r.stdout).toMatch(/PASS: 1\/1/)
    expect(r.code).toBe(0)
  })

  it('regent check parses the modules inside a tarball', async () => {
    const ok = await runRegent(['check', tarball])
    expect([ok.code, ok.stdout, ok.stderr]).toEqual([0, '', ''])
    const broken = await runRegent(['check', join(dir, 'broken.tar.gz')])
    expect(broken.code).toBe(1)
    expect(broken.stdout).toMatch(/x\.rego:\d+: rego_parse_error/)
  })
})
