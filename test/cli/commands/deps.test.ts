import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runRegent } from '../../support/run-cli.js'

let dir: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-deps-'))
  // The policy of `opa deps --help`.
  writeFileSync(
    join(dir, 'policy.rego'),
    'package policy\n\nallow if is_admin\n\nis_admin if "admin" in input.user.roles\n',
  )
  mkdirSync(join(dir, 'bundle', 'authz'), { recursive: true })
  writeFileSync(
    join(dir, 'bundle', 'authz', 'authz.rego'),
    [
      'package authz',
      '',
      'import data.roles',
      '',
      'default allow := false',
      '',
      'allow if {',
      '\tlevel := roles[input.user].level',
      '\tlevel > limit(input.action)',
      '}',
      '',
      'limit(a) := data.limits[a]',
      '',
      'mode := "strict" if input.strict else := data.config.mode',
      '',
      'print_only if print(data.debug)',
      '',
    ].join('\n'),
  )
  writeFileSync(join(dir, 'broken.rego'), 'package broken\n\nallow if {\n')
  writeFileSync(join(dir, 'unsafe.rego'), 'package unsafe\n\nallow if x > 1\n')
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

const ref = (...parts: string[]) => parts.map((p, i) => ({ type: i === 0 ? 'var' : 'string', value: p }))

describe('regent deps', () => {
  it('prints OPA’s table for the example of `opa deps --help`', async () => {
    const { code, stdout, stderr } = await runRegent([
      'deps',
      '--data',
      join(dir, 'policy.rego'),
      'data.policy.allow',
    ])
    expect(stderr).toBe('')
    expect(code).toBe(0)
    expect(stdout).toBe(
      [
        '+------------------+----------------------+',
        '|  BASE DOCUMENTS  |  VIRTUAL DOCUMENTS   |',
        '+------------------+----------------------+',
        '| input.user.roles | data.policy.allow    |',
        '|                  | data.policy.is_admin |',
        '+------------------+----------------------+',
        '',
      ].join('\n'),
    )
  })

  it('prints base and virtual refs as OPA AST JSON, walking functions, joins and else chains', async () => {
    const { code, stdout } = await runRegent(['deps', '-f', 'json', '-b', join(dir, 'bundle'), 'data.authz'])
    expect(code).toBe(0)
    expect(JSON.parse(stdout)).toEqual({
      base: [
        ref('data', 'config', 'mode'),
        ref('data', 'limits'),
        ref('data', 'roles'),
        ref('input', 'action'),
        ref('input', 'strict'),
        ref('input', 'user'),
      ],
      virtual: [
        ref('data', 'authz', 'allow'),
        ref('data', 'authz', 'limit'),
        ref('data', 'authz', 'mode'),
        ref('data', 'authz', 'print_only'),
      ],
    })
    const one = await runRegent(['deps', '-f', 'json', '-d', join(dir, 'bundle'), 'x := data.authz.mode'])
    expect(JSON.parse(one.stdout)).toEqual({
      base: [ref('data', 'config', 'mode'), ref('input', 'strict')],
      virtual: [ref('data', 'authz', 'mode')],
    })
  })

  it('lists refs no rule defines as base documents, and prints {} or nothing without dependencies', async () => {
    const base = await runRegent(['deps', '-f', 'json', 'data.servers[i].ports; input.x'])
    expect(base.code).toBe(0)
    expect(JSON.parse(base.stdout)).toEqual({ base: [ref('data', 'servers'), ref('input', 'x')] })
    const pretty = await runRegent(['deps', '-d', join(dir, 'policy.rego'), 'input.y'])
    expect(pretty.stdout).toBe(
      [
        '+----------------+',
        '| BASE DOCUMENTS |',
        '+----------------+',
        '| input.y        |',
        '+----------------+',
        '',
      ].join('\n'),
    )
    const none = await runRegent(['deps', '-f', 'json', 'x := 1 + 2'])
    expect(none.code).toBe(0)
    expect(none.stdout).toBe('{}\n')
    const empty = await runRegent(['deps', 'x := 1'])
    expect(empty.stdout).toBe('')
  })

  it('exits 1 with rego errors for malformed Rego, bad modules and bad queries; 2 without a query', async () => {
    const parse = await runRegent(['deps', '-d', join(dir, 'broken.rego'), 'data.broken.allow'])
    expect(parse.code).toBe(1)
    expect(parse.stderr).toContain('rego_parse_error')
    expect(parse.stdout).toBe('')
    const unsafe = await runRegent([
      'deps',
      '-f',
      'json',
      '-d',
      join(dir, 'unsafe.rego'),
      'data.unsafe.allow',
    ])
    expect(unsafe.code).toBe(1)
    expect(unsafe.stderr).toContain('rego_unsafe_var_error: var x is unsafe')
    const query = await runRegent(['deps', 'data.policy.allow[', '-d', join(dir, 'policy.rego')])
    expect(query.code).toBe(1)
    expect(query.stderr).toContain('rego_parse_error')
    const missing = await runRegent(['deps'])
    expect(missing.code).toBe(2)
    expect(missing.stderr).toContain("missing required argument 'query'")
  })
})
