/**
 * `regent lint` as a user runs it: a child process, exit codes as Regal's (0 clean, 3 errors, 2
 * warnings under `--fail-level warning`, 1 when the run fails), the report formats, the config file
 * found above the linted path, and the rule selection flags. Runs concurrently: each case is one
 * process start.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runRegent } from '../support/run-cli.js'

const dir = mkdtempSync(join(tmpdir(), 'regent-lint-'))
const clean = join(dir, 'clean')
mkdirSync(clean)
writeFileSync(
  join(clean, 'policy.rego'),
  'package clean\n\ndefault allow := false\n\nallow if "admin" in input.roles\n',
)
const bad = join(dir, 'bad')
mkdirSync(join(bad, 'vendor'), { recursive: true })
writeFileSync(
  join(bad, 'policy.rego'),
  'package bad\n\nallow if {\n\tinput.roles[_] == "admin"\n\tprint("debug")\n}\n\ncount := 3\n',
)
// Only reachable through the config's `ignore.files`.
writeFileSync(join(bad, 'vendor', 'lib.rego'), 'package vendor\n\nisBad := 1 == 1\n')
const configured = join(dir, 'configured')
mkdirSync(join(configured, '.regal'), { recursive: true })
mkdirSync(join(configured, 'src'))
writeFileSync(
  join(configured, 'src', 'policy.rego'),
  'package conf\n\nallow if input.roles[_] == "admin"\n\ntest_x if true\n',
)
writeFileSync(
  join(configured, '.regal', 'config.yaml'),
  'rules:\n  default:\n    level: warning\n  testing:\n    test-outside-test-package:\n      level: ignore\n    file-missing-test-suffix:\n      ignore:\n        files: ["src/*"]\n',
)

const timeoutMs = 60_000

interface JsonReport {
  violations: Array<{
    title: string
    category: string
    level: string
    location: { file: string; row: number }
  }>
  summary: { files_scanned: number; num_violations: number }
  metrics?: Record<string, number>
}

describe.concurrent('regent lint', { timeout: timeoutMs }, () => {
  it('exits 0 and says so when nothing is found', async () => {
    const { code, stdout } = await runRegent(['lint', clean], { timeoutMs })
    expect(stdout).toBe('1 file linted. No violations found.\n')
    expect(code).toBe(0)
  })

  it('exits 3 on error-level violations and prints Regal JSON with -f json (timers with --metrics)', async () => {
    const { code, stdout } = await runRegent(
      ['lint', '-f', 'json', '--metrics', '--ignore-files', 'vendor/', bad],
      {
        timeoutMs,
      },
    )
    expect(code).toBe(3)
    const report = JSON.parse(stdout) as JsonReport
    const titles = report.violations.map((v) => `${v.category}/${v.title}@${v.location.row}`)
    expect(titles).toEqual(
      expect.arrayContaining([
        'idiomatic/use-in-operator@4',
        'testing/print-or-trace-call@5',
        'bugs/rule-shadows-builtin@8',
      ]),
    )
    expect(
      report.violations.every((v) => v.level === 'error' && v.location.file.endsWith('policy.rego')),
    ).toBe(true)
    expect(report.summary).toMatchObject({ files_scanned: 1, num_violations: report.violations.length })
    expect(report.metrics?.timer_lint_parse_ns).toBeGreaterThan(0)
    expect(report.metrics?.['timer_lint_rule_style_opa-fmt_ns']).toBeGreaterThan(0)
  })

  it('reads .regal/config.yaml above the path: levels, per-rule ignore; warnings pass at the default fail level', async () => {
    const { code, stdout } = await runRegent(['lint', '-f', 'compact', join(configured, 'src')], {
      timeoutMs,
    })
    expect(stdout).toContain('warning: Use in to check for membership (idiomatic/use-in-operator)')
    expect(stdout).not.toContain('test-outside-test-package')
    expect(stdout).not.toContain('file-missing-test-suffix')
    expect(code).toBe(0)
  })

  it('exits 2 on warnings with --fail-level warning', async () => {
    const { code } = await runRegent(['lint', '-l', 'warning', join(configured, 'src')], { timeoutMs })
    expect(code).toBe(2)
  })

  it('-D with -e runs one rule; -f github writes annotations to -o', async () => {
    const out = join(dir, 'github.txt')
    const { code, stdout } = await runRegent(
      ['lint', '-D', '-e', 'print-or-trace-call', '-f', 'github', '-o', out, join(bad, 'policy.rego')],
      { timeoutMs },
    )
    expect(stdout).toBe('')
    expect(readFileSync(out, 'utf8')).toBe(
      `::error file=${join(bad, 'policy.rego').replace(/:/g, '%3A')},line=5,col=2,title=testing/print-or-trace-call::Call to print or trace function. To learn more, see: docs/lint.md#print-or-trace-call\n1 file linted. 1 violation found.\n`,
    )
    expect(code).toBe(3)
  })

  it('--enable-category after -D selects a category; -f sarif is SARIF 2.1.0', async () => {
    const { code, stdout } = await runRegent(
      ['lint', '-D', '--enable-category', 'bugs', '-f', 'sarif', join(bad, 'policy.rego')],
      { timeoutMs },
    )
    const sarif = JSON.parse(stdout) as {
      version: string
      runs: Array<{
        results: Array<{
          ruleId: string
          locations: Array<{ physicalLocation: { region: { startLine: number } } }>
        }>
      }>
    }
    expect(sarif.version).toBe('2.1.0')
    expect(sarif.runs[0]?.results.map((r) => r.ruleId)).toEqual(['bugs/rule-shadows-builtin'])
    expect(sarif.runs[0]?.results[0]?.locations[0]?.physicalLocation.region.startLine).toBe(8)
    expect(code).toBe(3)
  })

  it('exits 1 naming the key of a bad config file (-c)', async () => {
    const config = join(dir, 'bad-config.yaml')
    writeFileSync(config, 'rules:\n  style:\n    opa-fmt:\n      level: loud\n')
    const { code, stderr } = await runRegent(['lint', '-c', config, clean], { timeoutMs })
    expect(stderr).toContain('rules.style.opa-fmt.level: expected error, warning or ignore, got loud')
    expect(code).toBe(1)
  })

  it('exits 1 on a file that does not parse or a bad --timeout; explains --profile', async () => {
    const broken = join(dir, 'broken.rego')
    writeFileSync(broken, 'package broken\n\nallow if {\n')
    const parse = await runRegent(['lint', '--profile', broken], { timeoutMs })
    expect(parse.stderr).toContain('rego_parse_error')
    expect(parse.stderr).toContain('regent: --profile has no effect')
    expect(parse.code).toBe(1)
    const timeout = await runRegent(['lint', '--timeout', 'soon', clean], { timeoutMs })
    expect(timeout.stderr).toBe('regent: invalid --timeout soon (e.g. 30s, 1m)\n')
    expect(timeout.code).toBe(1)
  })
})
