import { mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { invalidFormatResult, parseCheckResultFlag } from '../../cli/commands/fmt-check-result.js'
import { runRegent } from '../support/run-cli.js'

const WITH_V0_IMPORTS =
  'package a\n\nimport future.keywords.if\nimport rego.v1\nimport data.lib\n\nallow if lib.ok\n'

describe('regent fmt --drop-v0-imports', () => {
  it('leaves out rego.v1 and future.keywords imports, keeps the others', async () => {
    const kept = await runRegent(['fmt'], { stdin: WITH_V0_IMPORTS })
    expect(kept.code).toBe(0)
    expect(kept.stdout).toContain('import rego.v1')
    const dropped = await runRegent(['fmt', '--drop-v0-imports'], { stdin: WITH_V0_IMPORTS })
    expect(dropped.code).toBe(0)
    expect(dropped.stdout).toBe('package a\n\nimport data.lib\n\nallow if lib.ok\n')
  })

  it('rewrites files with -w and reports them with -l --fail (exit 1)', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'regent-fmt-drop-'))
    const file = join(dir, 'a.rego')
    writeFileSync(file, 'package a\n\nimport rego.v1\n\nallow if input.x\n')
    const list = await runRegent(['fmt', '-l', '--fail', '--drop-v0-imports', dir])
    expect(list).toMatchObject({ code: 1, stdout: `${file}\n` })
    expect((await runRegent(['fmt', '-w', '--drop-v0-imports', dir])).code).toBe(0)
    expect(readFileSync(file, 'utf8')).toBe('package a\n\nallow if input.x\n')
  })

  it('keeps the imports when printing Rego v0, which needs them for the keywords', async () => {
    const v0 = 'package a\n\nimport future.keywords.if\n\nallow if input.x\n'
    const { code, stdout } = await runRegent(['fmt', '--v0-compatible', '--drop-v0-imports'], { stdin: v0 })
    expect(code).toBe(0)
    expect(stdout).toContain('import future.keywords.if')
  })
})

describe('regent fmt --check-result', () => {
  it('accepts --check-result=false and --check-result=true, refuses other values with exit 2', async () => {
    for (const flag of ['--check-result=false', '--check-result=true', '--check-result']) {
      const { code, stdout } = await runRegent(['fmt', flag], { stdin: 'package a\nallow if {input.x}\n' })
      expect(code).toBe(0)
      expect(stdout).toBe('package a\n\nallow if input.x\n')
    }
    const bad = await runRegent(['fmt', '--check-result=maybe'], { stdin: 'package a\n' })
    expect(bad.code).toBe(2)
    expect(bad.stderr).toContain('--check-result')
  })

  it('names the file and the parse error when a formatted result does not parse', () => {
    expect(invalidFormatResult('ok.rego', 'package a\n\nallow if input.x\n', 'v1')).toBeUndefined()
    const message = invalidFormatResult('broken.rego', 'package a\n\nallow if {\n', 'v1')
    expect(message).toMatch(
      /^broken\.rego was successfully formatted, but the result is invalid: .*rego_parse_error/,
    )
    expect(message).toContain('--check-result=false')
    // v0 text that is not v1: the check parses with the version that was printed.
    expect(invalidFormatResult('v0.rego', 'package a\n\nallow { input.x }\n', 'v0')).toBeUndefined()
    expect(invalidFormatResult('v0.rego', 'package a\n\nallow { input.x }\n', 'v1')).toBeDefined()
    expect(parseCheckResultFlag(true)).toBe(true)
    expect(parseCheckResultFlag('false')).toBe(false)
    expect(() => parseCheckResultFlag('0')).toThrow('--check-result')
  })
})
