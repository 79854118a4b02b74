import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runRegent } from '../../support/run-cli.js'

let dir: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-eval-formats-'))
  writeFileSync(
    join(dir, 'authz.rego'),
    'package authz\n\nallow if {\n\tinput.user.role == "admin"\n\tinput.method == "GET"\n}\n\nallow if input.user.name == "root"\n',
  )
  writeFileSync(join(dir, 'input.json'), '{"user": {"role": "admin", "name": "x"}, "method": "GET"}')
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('regent eval -f source', () => {
  it('prints each residual query of -p as Rego under "# Query N", as opa eval -f source does', async () => {
    const { code, stdout, stderr } = await runRegent([
      'eval',
      '-p',
      '-f',
      'source',
      '-d',
      join(dir, 'authz.rego'),
      'data.authz.allow == true',
    ])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    const blocks = stdout.split(/^# Query \d+\n/m).filter((b) => b.length > 0)
    expect(stdout.startsWith('# Query 1\n')).toBe(true)
    expect(blocks).toHaveLength(2)
    expect(blocks[0]).toContain('input.user.role = "admin"')
    expect(blocks[0]).toContain('input.method = "GET"')
    expect(blocks[1]).toContain('input.user.name = "root"')
    // Each block is the query's expressions, one a line, then a blank line.
    for (const block of blocks) expect(block.endsWith('\n\n')).toBe(true)
  })

  it('numbers support modules "# Module N" when a rule is kept out of the queries', async () => {
    const { code, stdout } = await runRegent([
      'eval',
      '-p',
      '-f',
      'source',
      '--disable-inlining',
      'data.authz.allow',
      '-d',
      join(dir, 'authz.rego'),
      'data.authz.allow == true',
    ])
    expect(code).toBe(0)
    expect(stdout).toMatch(/^# Query 1\n/)
    expect(stdout).toMatch(/^# Module 1\npackage /m)
  })

  it('is refused without -p (exit 2), since it prints partial results only', async () => {
    const { code, stdout, stderr } = await runRegent(['eval', '-f', 'source', '1 == 1'])
    expect(code).toBe(2)
    expect(stdout).toBe('')
    expect(stderr).toContain('-p/--partial')
  })
})

describe('regent eval -f discard', () => {
  it('prints the JSON output with "result" replaced by "discarded", metrics kept', async () => {
    const { code, stdout } = await runRegent([
      'eval',
      '-f',
      'discard',
      '--metrics',
      '-d',
      join(dir, 'authz.rego'),
      '-i',
      join(dir, 'input.json'),
      'data.authz.allow',
    ])
    expect(code).toBe(0)
    const doc = JSON.parse(stdout)
    expect(doc.result).toBe('discarded')
    expect(Object.keys(doc.metrics)).toContain('timer_rego_query_eval_ns')
  })

  it('leaves out "result" when undefined, so --fail still exits 1', async () => {
    const { code, stdout } = await runRegent([
      'eval',
      '-f',
      'discard',
      '--fail',
      '-d',
      join(dir, 'authz.rego'),
      'data.authz.allow',
    ])
    expect(code).toBe(1)
    expect(JSON.parse(stdout)).toEqual({})
  })

  it('prints errors as JSON on stdout with exit 2, as -f json does', async () => {
    const { code, stdout } = await runRegent(['eval', '-f', 'discard', 'x'])
    expect(code).toBe(2)
    const doc = JSON.parse(stdout)
    expect(doc.errors[0].code).toBe('rego_unsafe_var_error')
  })
})

describe('regent eval --var-values', () => {
  it('appends the bound variables of each expression to the pretty trace lines', async () => {
    writeFileSync(join(dir, 'vars.rego'), 'package vars\n\nr if {\n\tsome x in [1, 2]\n\tx * 10 > 15\n}\n')
    const args = ['eval', '--explain', 'full', '-f', 'pretty', '-d', join(dir, 'vars.rego'), 'data.vars.r']
    const plain = await runRegent(args)
    const withVars = await runRegent([...args, '--var-values'])
    expect(withVars.code).toBe(0)
    expect(plain.stdout).not.toContain('{x: 1}')
    const lines = withVars.stdout.split('\n')
    // x is bound to 1 when the comparison is first evaluated and fails, then to 2.
    expect(lines.some((l) => /\| Eval mul\(x, 10, \S+\) +\{x: 1\}$/.test(l))).toBe(true)
    expect(lines.some((l) => /\| Eval mul\(x, 10, \S+\) +\{x: 2\}$/.test(l))).toBe(true)
    expect(lines.at(-2)).toBe('true')
  })
})
