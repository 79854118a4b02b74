import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runRegent } from '../support/run-cli.js'

const UGLY = 'package a\nallow if {input.x == 1}\n'
const PRETTY = 'package a\n\nallow if input.x == 1\n'

function fixture(): { dir: string; ugly: string; pretty: string } {
  const dir = mkdtempSync(join(tmpdir(), 'regent-fmt-'))
  const ugly = join(dir, 'ugly.rego')
  const pretty = join(dir, 'pretty.rego')
  writeFileSync(ugly, UGLY)
  writeFileSync(pretty, PRETTY)
  return { dir, ugly, pretty }
}

describe('regent fmt', () => {
  it('formats stdin to stdout', async () => {
    const { code, stdout } = await runRegent(['fmt'], { stdin: UGLY })
    expect(code).toBe(0)
    expect(stdout).toBe(PRETTY)
  })

  it('prints formatted files, lists the ones that differ, shows a diff and fails with --fail', async () => {
    const { dir, ugly } = fixture()
    expect((await runRegent(['fmt', ugly])).stdout).toBe(PRETTY)
    const list = await runRegent(['fmt', '-l', dir])
    expect(list).toMatchObject({ code: 0, stdout: `${ugly}\n` })
    const diff = await runRegent(['fmt', '-d', ugly])
    expect(diff.stdout).toContain('\n-allow if {input.x == 1}\n')
    expect(diff.stdout).toContain('\n+allow if input.x == 1\n')
    expect(diff.stdout).toMatch(/^diff a\/.*ugly\.rego b\/.*ugly\.rego\n/)
    const fail = await runRegent(['fmt', '-l', '--fail', dir])
    expect(fail.code).toBe(1)
  })

  it('rewrites files with -w and then has nothing left to change', async () => {
    const { dir, ugly } = fixture()
    expect((await runRegent(['fmt', '-w', dir])).code).toBe(0)
    expect(readFileSync(ugly, 'utf8')).toBe(PRETTY)
    expect(await runRegent(['fmt', '-l', '--fail', dir])).toMatchObject({ code: 0, stdout: '' })
  })

  it('converts v0 to v1 with --v0-v1 (import rego.v1 keeps it valid in v0) and keeps v0 with --v0-compatible', async () => {
    const v0 = 'package a\n\np[x] {\n\tx := 1\n}\n'
    expect((await runRegent(['fmt', '--v0-v1'], { stdin: v0 })).stdout).toBe(
      'package a\n\nimport rego.v1\n\np contains x if {\n\tx := 1\n}\n',
    )
    expect((await runRegent(['fmt', '--v0-compatible'], { stdin: v0 })).stdout).toBe(v0)
  })

  it("prefixes a file's errors as opa fmt does, exits 2 and formats no further file", async () => {
    const { dir } = fixture()
    const broken = join(dir, 'a-broken.rego')
    const arity = join(dir, 'b-arity.rego')
    writeFileSync(broken, 'package a\np := \n')
    writeFileSync(arity, 'package a\n\np if plus(1, 2, 3, 4)\n')
    const parse = await runRegent(['fmt', broken, arity])
    expect(parse.code).toBe(2)
    expect(parse.stderr).toMatch(
      /^failed to format Rego source file: 2 errors occurred:\n.*a-broken\.rego:3: rego_parse_error: unexpected eof token\n/,
    )
    expect(parse.stderr).not.toContain('b-arity')
    const format = await runRegent(['fmt', arity])
    expect(format.code).toBe(2)
    expect(format.stderr).toBe(
      `failed to format Rego source file: ${arity}: 1 error occurred: ${arity}:3: rego_type_error: plus: arity mismatch\n` +
        '\thave: (number,number,number,number)\n\twant: (number,number)\n',
    )
  })

  it('reports parse errors on stderr with exit 1', async () => {
    const { code, stdout, stderr } = await runRegent(['fmt'], { stdin: 'package a\np := \n' })
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toContain('stdin:3: rego_parse_error')
  })

  it('refuses -w on stdin as a usage error', async () => {
    const { code, stderr } = await runRegent(['fmt', '-w'], { stdin: UGLY })
    expect(code).toBe(2)
    expect(stderr).toContain('--write needs file paths')
  })
})
