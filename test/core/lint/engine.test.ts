import { describe, expect, it } from 'vitest'
import { BUILTIN_LINT_RULES } from '../../../core/lint/builtin-rules.js'
import { emptyConfig, parseConfig } from '../../../core/lint/config.js'
import { loadCustomRules } from '../../../core/lint/custom-rules.js'
import { LintTimeoutError, lint } from '../../../core/lint/engine.js'

const titles = (r: Awaited<ReturnType<typeof lint>>) =>
  r.report.violations.map((v) => `${v.location.file}:${v.title}`)

describe('lint engine', () => {
  it('lints the files that parse, counts the others as failed, and reads v0 files as v0', async () => {
    const result = await lint({
      files: [
        { file: 'broken.rego', text: 'package broken\n\nallow if {\n' },
        { file: 'v0.rego', text: 'package v0\n\nallow {\n\tinput.roles[_] == "admin"\n}\n' },
      ],
      rules: BUILTIN_LINT_RULES,
      config: emptyConfig(),
    })
    expect(result.parseErrors.map((e) => e.code)).toContain('rego_parse_error')
    expect(result.report.summary).toMatchObject({ files_scanned: 2, files_failed: 1 })
    expect(titles(result)).toContain('v0.rego:use-in-operator')
    expect(titles(result)).not.toContain('v0.rego:redundant-rego-v1-import')
  })

  it('skips files ignored globally and per rule', async () => {
    const config = parseConfig(
      'rules:\n  style:\n    prefer-snake-case:\n      ignore:\n        files: [legacy/*]\nignore:\n  files: ["vendor/"]\n',
    )
    const text = 'package p\n\nisAdmin if input.admin\n'
    const result = await lint({
      files: [
        { file: 'vendor/a.rego', text },
        { file: 'legacy/b.rego', text },
        { file: 'src/c.rego', text },
      ],
      rules: BUILTIN_LINT_RULES,
      config,
      ignoreFiles: ['src/c.rego'],
    })
    expect(result.report.summary.files_scanned).toBe(1)
    expect(titles(result).filter((t) => t.includes('snake'))).toEqual([])
  })

  it('stops with LintTimeoutError past the deadline', async () => {
    await expect(
      lint({
        files: [{ file: 'a.rego', text: 'package a\n' }],
        rules: BUILTIN_LINT_RULES,
        config: emptyConfig(),
        deadline: Date.now() - 1,
      }),
    ).rejects.toBeInstanceOf(LintTimeoutError)
  })

  it('stops a runaway custom rule with an error instead of hanging', async () => {
    const [rule] = loadCustomRules([
      {
        file: 'spin.rego',
        text: 'package custom.regal.rules.bugs.spin\n\nreport contains i if {\n\tsome i in numbers.range(1, 100000)\n\tsome j in numbers.range(1, 100000)\n\ti == j + 100001\n}\n',
      },
    ])
    const started = Date.now()
    await expect(
      lint({ files: [{ file: 'a.rego', text: 'package a\n' }], rules: [rule!], config: emptyConfig() }),
    ).rejects.toThrow()
    expect(Date.now() - started).toBeLessThan(20_000)
  })
})
