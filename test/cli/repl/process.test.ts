/**
 * `regent run` without `-s` as a user pipes into it: the real launcher, files and a data file on
 * the command line, exit codes, `print()` on stderr, and a policy that does not load.
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runRegent } from '../../support/run-cli.js'
import { defined } from './support.js'

describe.concurrent('regent run (shell process)', () => {
  let dir: string
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'regent-repl-cli-'))
    await writeFile(
      join(dir, 'authz.rego'),
      'package authz\n\ndefault allow := false\n\nallow if input.user in data.admins\n\nhello if print("hello", input.user)\n',
    )
    await writeFile(join(dir, 'data.json'), '{"admins": ["alice"]}')
    await writeFile(join(dir, 'broken.rego'), 'package broken\n\nallow if {\n')
    await mkdir(join(dir, 'bundle', 'shop'), { recursive: true })
    await writeFile(
      join(dir, 'bundle', 'shop', 'price.rego'),
      'package shop\n\nprice := data.shop.base * 2\n',
    )
    await writeFile(join(dir, 'bundle', 'shop', 'data.json'), '{"base": 21}')
  })
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('loads policies and data, answers each line, and exits 0 at the end of input', async () => {
    const res = await runRegent(['run', join(dir, 'authz.rego'), join(dir, 'data.json')], {
      stdin: 'data.admins\ndata.authz.allow\npackage authz\nallow with input.user as "alice"\nx := 1\n',
    })
    expect(res.stderr).toBe('')
    expect(res.stdout).toBe(`[\n  "alice"\n]\nfalse\ntrue\n${defined('x', 'authz')}`)
    expect(res.code).toBe(0)
  })

  it('loads bundles given with -b', async () => {
    const res = await runRegent(['run', '-b', join(dir, 'bundle')], { stdin: 'data.shop.price\n' })
    expect(res).toMatchObject({ code: 0, stdout: '42\n', stderr: '' })
  })

  it('writes print() output to stderr and results to stdout', async () => {
    const res = await runRegent(['run', join(dir, 'authz.rego')], {
      stdin: 'data.authz.hello with input.user as "bob"\n',
    })
    expect(res).toMatchObject({ code: 0, stdout: 'true\n', stderr: 'hello bob\n' })
  })

  it('exits 0 after exit, and after a parse error it printed', async () => {
    const res = await runRegent(['run'], { stdin: 'x := [1,,2]\nexit\n1\n' })
    expect(res.code).toBe(0)
    expect(res.stdout).toBe(
      '2 errors occurred:\n1:9: rego_parse_error: unexpected , token: expected term\n\tx := [1,,2]\n\t        ^\n1:9: rego_parse_error: unexpected , token: expected rule value term (e.g., x := <VALUE> { ... })\n\tx := [1,,2]\n\t        ^\n',
    )
  })

  it('starts in json output with -f json', async () => {
    const res = await runRegent(['run', '-f', 'json'], { stdin: '1 + 1\n' })
    expect(JSON.parse(res.stdout)).toEqual({
      result: [{ expressions: [{ value: 2, text: '1 + 1', location: { row: 1, col: 1 } }] }],
    })
  })

  it('exits 1 naming the parse error when a policy does not load', async () => {
    const res = await runRegent(['run', join(dir, 'broken.rego')], { stdin: '1\n' })
    expect(res.code).toBe(1)
    expect(res.stdout).toBe('')
    expect(res.stderr).toContain('rego_parse_error')
  })
})
