/**
 * `regent check --v0-v1` (valid in both Rego versions), `regent fmt --v0-v1` (writes modules valid
 * in both) and `regent fmt --capabilities` (keyword imports and `import rego.v2` limited to the
 * capabilities), through the real CLI with exit codes checked.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runRegent } from '../support/run-cli.js'

let dir: string
const file = (name: string) => join(dir, name)

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-v0v1-'))
  writeFileSync(file('both.rego'), 'package a\n\nimport rego.v1\n\nallow if input.x == 1\n')
  writeFileSync(file('v1only.rego'), 'package a\n\nallow if input.x == 1\n')
  writeFileSync(file('v0only.rego'), 'package a\n\nallow { input.x == 1 }\n')
  writeFileSync(file('v2.rego'), 'package a\n\nimport rego.v2\n\nallow if input.x == 1\n')
  writeFileSync(file('caps.json'), JSON.stringify({ builtins: [], future_keywords: ['if'], features: [] }))
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('regent check --v0-v1', () => {
  it('passes a module valid in both versions and fails one valid in only one, naming the version', async () => {
    const [both, v1only, v0only, plain] = await Promise.all([
      runRegent(['check', '--v0-v1', file('both.rego')]),
      runRegent(['check', '--v0-v1', file('v1only.rego')]),
      runRegent(['check', '--v0-v1', file('v0only.rego')]),
      runRegent(['check', file('v1only.rego')]),
    ])
    expect(both).toMatchObject({ code: 0, stdout: '', stderr: '' })
    expect(v1only.code).toBe(1)
    expect(v1only.stdout).toContain('(Rego v0)')
    expect(v0only.code).toBe(1)
    expect(v0only.stdout).toContain('`if` keyword is required before rule body (Rego v1)')
    expect(plain.code).toBe(0) // without the flag, v1 alone is checked
  })
})

describe('regent fmt --v0-v1 and --capabilities', () => {
  it('--v0-v1 turns a v0 module into one that check --v0-v1 accepts', async () => {
    const formatted = await runRegent(['fmt', '--v0-v1', file('v0only.rego')])
    expect(formatted.code).toBe(0)
    expect(formatted.stdout).toBe('package a\n\nimport rego.v1\n\nallow if input.x == 1\n')
    writeFileSync(file('converted.rego'), formatted.stdout)
    expect((await runRegent(['check', '--v0-v1', file('converted.rego')])).code).toBe(0)
  })

  it('--v0-v1 refuses a v0 module that cannot be v1: deprecated built-ins, keyword rule names', async () => {
    writeFileSync(file('old.rego'), 'package a\n\np { re_match("a", "a") }\n\ncontains := 1\n')
    const out = await runRegent(['fmt', '--v0-v1', file('old.rego')])
    expect(out.code).toBe(2)
    expect(out.stderr).toBe(
      `failed to format Rego source file: 2 errors occurred:\n${file('old.rego')}:3: rego_type_error: deprecated built-in function calls in expression: re_match\n` +
        `${file('old.rego')}:5: rego_parse_error: contains keyword cannot be used for rule name\n`,
    )
  })

  it('--capabilities refuses import rego.v2 when the capabilities lack it, and a bad file (exit 2)', async () => {
    const [refused, allowed, bad] = await Promise.all([
      runRegent(['fmt', '--capabilities', file('caps.json'), file('v2.rego')]),
      runRegent(['fmt', file('v2.rego')]),
      runRegent(['fmt', '--capabilities', file('nope.json'), file('v2.rego')]),
    ])
    expect(refused.code).toBe(2)
    expect(refused.stderr).toContain('failed to format Rego source file: ')
    expect(refused.stderr).toContain('`rego.v2` is not supported by current capabilities')
    expect(allowed.code).toBe(0)
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--capabilities')
  })
})
