/**
 * `regent lint -r` with a Regal-style custom rule evaluated by regent's engine, and the `filtering`
 * category, whose messages must be exactly those `/v1/compile` answers for the same policy.
 */
import { mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { EngineBackend } from '../../compile/backend.js'
import { CompileFailure, CompileService } from '../../compile/index.js'
import { parseModule } from '../../core/rego/syntax/module-parser.js'
import { runRegent } from '../support/run-cli.js'

const dir = mkdtempSync(join(tmpdir(), 'regent-lint-custom-'))
mkdirSync(join(dir, 'rules'))
writeFileSync(
  join(dir, 'rules', 'naming.rego'),
  `# METADATA
# description: Rule names must not start with deny_
package custom.regal.rules.naming["no-deny-prefix"]

import data.regal.result

report contains violation if {
\tsome rule in input.rules
\tstartswith(rule.head.ref[0].value, "deny_")
\tprint("custom rule saw", rule.head.ref[0].value)
\tviolation := result.fail(rego.metadata.chain(), result.location(rule))
}
`,
)
const target = join(dir, 'target.rego')
writeFileSync(target, 'package target\n\nallow if input.a\n\ndeny_all if input.b\n')

const filter = join(dir, 'filters.rego')
const filterText = `# METADATA
# scope: package
# compile:
#   unknowns: [input.fruits]
package filters

include if {
\tstartswith("x", input.fruits.name)
}

include if {
\tevery tag in input.fruits.tags { tag == "a" }
}

include if {
\tupper(input.fruits.colour) == "RED"
}

include if {
\tinput.fruits.price > 3
}
`
writeFileSync(filter, filterText)

const timeoutMs = 60_000

/** What /v1/compile answers for data.filters.include, through the endpoint's own service. */
async function endpointErrors(): Promise<Array<{ row: number; message: string }>> {
  const modules = new Map([[filter, parseModule(filterText, { file: filter })]])
  const service = new CompileService(new EngineBackend({ modules }))
  try {
    await service.compile({
      path: 'filters/include',
      accept: 'application/vnd.opa.sql.postgresql+json',
      contentType: 'application/json',
      bodyText: '{}',
      metrics: false,
    })
  } catch (err) {
    if (err instanceof CompileFailure)
      return (err.errors ?? []).map((e) => ({ row: e.location?.row ?? 0, message: e.message }))
    throw err
  }
  return []
}

describe.concurrent('regent lint: custom rules and filtering', { timeout: timeoutMs }, () => {
  it('runs a custom.regal.rules package from -r, with print output on stderr under --enable-print', async () => {
    const { code, stdout, stderr } = await runRegent(
      [
        'lint',
        '-D',
        '-e',
        'no-deny-prefix',
        '-r',
        join(dir, 'rules'),
        '--enable-print',
        '-f',
        'json',
        target,
      ],
      { timeoutMs },
    )
    const report = JSON.parse(stdout) as { violations: Array<Record<string, unknown>> }
    expect(report.violations).toEqual([
      expect.objectContaining({
        title: 'no-deny-prefix',
        category: 'naming',
        description: 'Rule names must not start with deny_',
        level: 'error',
        location: { file: target, row: 5, col: 1, text: 'deny_all if input.b' },
      }),
    ])
    expect(stderr).toContain('custom rule saw deny_all')
    expect(code).toBe(3)
  })

  it('reports what /v1/compile would refuse, with the endpoint message, and nothing it accepts', async () => {
    const [{ code, stdout }, expected] = await Promise.all([
      runRegent(['lint', '-D', '--enable-category', 'filtering', '-f', 'json', filter], { timeoutMs }),
      endpointErrors(),
    ])
    const report = JSON.parse(stdout) as {
      violations: Array<{ title: string; description: string; location: { row: number } }>
    }
    const got = report.violations.map((v) => ({ row: v.location.row, message: v.description }))
    expect(expected.length).toBe(3) // startswith with a known rhs, every, upper
    expect(got).toEqual(expected)
    expect(report.violations.every((v) => v.title === 'filter-fragment')).toBe(true)
    expect(code).toBe(3)
  })

  it('loads .regal/rules above the linted path without a config file, and does not lint them as policy', async () => {
    const project = join(dir, 'project')
    mkdirSync(join(project, '.regal', 'rules'), { recursive: true })
    mkdirSync(join(project, 'policy'))
    writeFileSync(
      join(project, '.regal', 'rules', 'naming.rego'),
      readFileSync(join(dir, 'rules', 'naming.rego')),
    )
    writeFileSync(join(project, 'policy', 'target.rego'), readFileSync(target))
    const { code, stdout } = await runRegent(['lint', '-f', 'json', join(project, 'policy')], { timeoutMs })
    const report = JSON.parse(stdout) as { violations: Array<{ title: string; location: { file: string } }> }
    expect(report.violations.map((v) => v.title)).toEqual(['no-deny-prefix'])
    expect(report.violations.every((v) => !v.location.file.includes('.regal'))).toBe(true)
    expect(code).toBe(3)
  })

  it('refuses an unknown rule name with exit 1', async () => {
    const { code, stderr } = await runRegent(['lint', '-d', 'no-such-rule', target], { timeoutMs })
    expect(stderr).toBe('regent: unknown rule no-such-rule (rules: docs/lint.md)\n')
    expect(code).toBe(1)
    expect(readFileSync(target, 'utf8')).toContain('deny_all') // untouched
  })
})
