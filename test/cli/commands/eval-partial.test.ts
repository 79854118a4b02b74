import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runRegent } from '../../support/run-cli.js'

let dir: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-eval-partial-'))
  writeFileSync(
    join(dir, 'filters.rego'),
    `package filters
include if input.fruits.price > 100
include if { input.fruits.name == input.fav; not input.fruits.rotten }
default ok := false
ok if input.fruits.x == 1
include if ok
`,
  )
  writeFileSync(join(dir, 'input.json'), '{"fav": "kiwi"}')
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('regent eval -p', () => {
  it('prints residual queries and support modules as OPA JSON', async () => {
    const args = [
      'eval',
      '-p',
      '-u',
      'input.fruits',
      '-d',
      join(dir, 'filters.rego'),
      '-i',
      join(dir, 'input.json'),
    ]
    const { code, stdout } = await runRegent([...args, 'data.filters.include'])
    expect(code).toBe(0)
    const out = JSON.parse(stdout) as {
      partial: { queries: unknown[][]; support: Array<{ package: unknown }> }
    }
    expect(out.partial.queries).toHaveLength(3)
    expect(out.partial.queries[0]?.[0]).toMatchObject({
      terms: [
        { type: 'ref', value: [{ type: 'var', value: 'gt' }] },
        { type: 'ref' },
        { type: 'number', value: 100 },
      ],
    })
    expect(out.partial.support[0]?.package).toMatchObject({
      path: [
        { type: 'var', value: 'data' },
        { type: 'string', value: 'partial' },
        { type: 'string', value: 'filters' },
      ],
    })
  })

  it('passes --disable-inlining and --shallow-inlining to partial evaluation', async () => {
    const base = ['eval', '-p', '-f', 'pretty', '-u', 'input.fruits', '-d', join(dir, 'filters.rego')]
    const disabled = await runRegent([
      ...base,
      '--disable-inlining',
      'data.filters.ok',
      'data.filters.include',
    ])
    expect(disabled.code).toBe(0)
    expect(disabled.stdout).toContain('data.partial.filters.ok')
    const shallow = await runRegent([...base, '--shallow-inlining', 'data.filters.include'])
    expect(shallow.code).toBe(0)
    // The whole include rule set depends on unknowns: the query refers to its support rules.
    expect(shallow.stdout).toContain('data.partial.filters.include')
    expect(shallow.stdout).toContain('package partial.filters')
    const inlined = await runRegent([...base, 'data.filters.include'])
    expect(inlined.stdout).not.toContain('data.partial.filters.include')
  })

  it('prints Rego with --format pretty, and all of input unknown by default', async () => {
    const pretty = await runRegent([
      'eval',
      '--partial',
      '-f',
      'pretty',
      '-d',
      join(dir, 'filters.rego'),
      '-i',
      join(dir, 'input.json'),
      'data.filters.include',
    ])
    expect(pretty.code).toBe(0)
    expect(pretty.stdout).toMatch(/^\+-+\+-+\+\n\| Query 1 +\| input\.fruits\.price > 100 +\|$/m)
    expect(pretty.stdout).toMatch(/^\| Support 1 \| package partial\.filters +\|$/m)
    expect(pretty.stdout).toContain('default ok := false')
    // Without -u all of input is unknown: input.fav stays in the residual.
    expect(pretty.stdout).toContain('input.fruits.name = input.fav')
  })

  it('fails with --fail when nothing can be true, and reports bad unknowns', async () => {
    const never = await runRegent([
      'eval',
      '-p',
      '--fail',
      '-d',
      join(dir, 'filters.rego'),
      'data.filters.nothing',
    ])
    expect(never.code).toBe(1)
    expect(never.stdout).toContain('"queries": []')
    const bad = await runRegent([
      'eval',
      '-p',
      '-u',
      'x.y',
      '-d',
      join(dir, 'filters.rego'),
      'data.filters.include',
    ])
    expect(bad.code).toBe(2)
    expect(JSON.parse(bad.stdout).errors[0].message).toContain('unknowns must be refs to input or data')
  })

  it("prints -f pretty as OPA's table: a row per query and per support module, tabs as two spaces", async () => {
    const { code, stdout } = await runRegent(['eval', '-p', '-f', 'pretty', 'input.x = 1; input.y = 2'])
    expect(code).toBe(0)
    expect(stdout).toBe(
      [
        '+---------+-------------+',
        '| Query 1 | input.x = 1 |',
        '|         | input.y = 2 |',
        '+---------+-------------+',
        '',
      ].join('\n'),
    )
  })
})
