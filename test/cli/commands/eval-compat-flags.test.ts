/**
 * `regent eval` flags of issue 22: `-t` (wasm refused naming the alternative), `-e` and `-O`
 * (accepted, checked, same results), `--optimize-store-for-read-speed`, and the log flags.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runRegent } from '../../support/run-cli.js'

let dir: string
let policy: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-eval-flags-'))
  policy = join(dir, 'p.rego')
  writeFileSync(policy, 'package x\n\nallow if input.a == 1\n')
  writeFileSync(join(dir, 'in.json'), '{"a": 1}')
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

const evalAllow = (...flags: string[]) =>
  runRegent(['eval', '-d', policy, '-i', join(dir, 'in.json'), '-f', 'raw', 'data.x.allow', ...flags])

describe('regent eval -t, -e, -O, --optimize-store-for-read-speed', () => {
  it('refuses -t wasm with a usage error naming -t rego, and checks -O and -e values', async () => {
    const [wasm, badO, badE, ok] = await Promise.all([
      evalAllow('-t', 'wasm'),
      evalAllow('-O', 'fast'),
      evalAllow('-e', 'not a path'),
      evalAllow('-t', 'rego', '-O', '2', '-e', 'x/allow', '--optimize-store-for-read-speed'),
    ])
    expect(wasm.code).toBe(2)
    expect(wasm.stderr).toContain('use -t rego')
    expect(wasm.stdout).toBe('')
    expect(badO.code).toBe(2)
    expect(badO.stderr).toContain('-O fast')
    expect(badE.code).toBe(2)
    expect(badE.stderr).toContain('-e not a path')
    expect(ok).toMatchObject({ code: 0, stdout: 'true\n', stderr: '' })
  })

  it('refuses -O above 0 with both -d and -b, in OPA words', async () => {
    const both = await evalAllow('-O', '1', '-e', 'x/allow', '-b', dir)
    expect(both.code).toBe(2)
    expect(both.stderr).toContain(
      'specify either --data or --bundle flag with optimization level greater than 0',
    )
    expect((await evalAllow('-O', '0', '-b', dir)).code).toBe(0)
  })

  it('refuses -O above 0 on -d/-b files without an entrypoint (-e or annotated), as opa does', async () => {
    const annotated = join(dir, 'annotated.rego')
    writeFileSync(annotated, 'package y\n\n# METADATA\n# entrypoint: true\np := 1\n')
    const [none, partial, withAnnotation, noFiles] = await Promise.all([
      evalAllow('-O', '1'),
      evalAllow('-O', '1', '-p'),
      runRegent(['eval', '-O', '2', '-d', annotated, '-f', 'raw', 'data.y.p']),
      runRegent(['eval', '-O', '1', '-f', 'raw', '1 + 1']),
    ])
    for (const refused of [none, partial]) {
      expect(refused.code).toBe(2)
      expect(refused.stderr).toContain('bundle optimizations require at least one entrypoint')
      expect(refused.stdout).toBe('')
    }
    expect(withAnnotation).toMatchObject({ code: 0, stdout: '1\n' })
    // Nothing to build without -d or -b: opa evaluates the query.
    expect(noFiles).toMatchObject({ code: 0, stdout: '2\n' })
  })
})

describe('regent eval log flags', () => {
  it('-l debug writes what was loaded and evaluated to stderr, in the format asked for', async () => {
    const [json, text, quiet, bad] = await Promise.all([
      evalAllow('-l', 'debug'),
      evalAllow('-l', 'debug', '--log-format', 'text'),
      evalAllow('-l', 'error'),
      evalAllow('--log-level', 'verbose'),
    ])
    expect(json.stdout).toBe('true\n')
    const lines = json.stderr
      .trim()
      .split('\n')
      .map((l) => JSON.parse(l) as { level: string; msg: string })
    expect(lines.map((l) => l.msg)).toEqual(['policies and data loaded', 'query evaluated'])
    expect(lines.every((l) => l.level === 'debug')).toBe(true)
    expect(text.stderr).toMatch(/^\S+ debug policies and data loaded modules=\[".*p\.rego"\] input=true$/m)
    expect(quiet).toMatchObject({ code: 0, stderr: '' })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--log-level')
  })
})
