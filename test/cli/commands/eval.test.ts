import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runRegent } from '../../support/run-cli.js'

let dir: string

beforeAll(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-eval-'))
  mkdirSync(join(dir, 'policy', 'roles'), { recursive: true })
  writeFileSync(
    join(dir, 'policy', 'authz.rego'),
    'package authz\n\nallow if input.user in data.roles.admins\n\nusers contains u if some u in data.roles.admins\n',
  )
  writeFileSync(
    join(dir, 'policy', 'roles', 'data.json'),
    '{"admins": ["alice", "bob"], "big": 123456789012345678901234567890}',
  )
  writeFileSync(join(dir, 'policy', 'ignored.json'), '{"not": "loaded"}')
  writeFileSync(join(dir, 'input.json'), '{"user": "alice"}')
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

describe('regent eval', () => {
  it('prints OPA-shaped JSON with expressions and bindings, data rooted at folders', async () => {
    const { code, stdout } = await runRegent([
      'eval',
      '-d',
      join(dir, 'policy'),
      '-i',
      join(dir, 'input.json'),
      'x := data.authz.allow; y := data.roles.big; z := data.ignored',
    ])
    expect(code).toBe(0)
    expect(stdout.trim()).toBe('{}')
    const ok = await runRegent([
      'eval',
      '-d',
      join(dir, 'policy'),
      '-i',
      join(dir, 'input.json'),
      'x := data.authz.allow; y := data.roles.big',
    ])
    expect(ok.code).toBe(0)
    const out = JSON.parse(ok.stdout.replace('123456789012345678901234567890', '"big"'))
    expect(out.result[0].bindings).toEqual({ x: true, y: 'big' })
    expect(out.result[0].expressions[0]).toMatchObject({
      value: true,
      text: 'x := data.authz.allow',
      location: { row: 1, col: 1 },
    })
    expect(ok.stdout).toContain('123456789012345678901234567890')
  })

  it('reads data and input JSON as OPA does: the last duplicate key wins, deep nesting is refused', async () => {
    writeFileSync(join(dir, 'dup.json'), '{"a": 1, "a": 12345678901234567890}')
    const dup = await runRegent(['eval', '-f', 'values', '-d', join(dir, 'dup.json'), 'data.a'])
    expect(dup.stdout.replace(/\s/g, '')).toBe('[12345678901234567890]')
    writeFileSync(join(dir, 'deep.json'), `{"user": ${'['.repeat(100_000)}${']'.repeat(100_000)}}`)
    const deep = await runRegent(['eval', '-i', join(dir, 'deep.json'), 'input.user'])
    expect(deep.code).toBe(2)
    expect(JSON.parse(deep.stdout).errors[0].message).toBe(
      `${join(dir, 'deep.json')}: JSON document nested too deeply`,
    )
  })

  it('supports values, raw and pretty formats and --fail', async () => {
    const values = await runRegent(['eval', '-f', 'values', '-d', join(dir, 'policy'), 'data.authz.users'])
    expect(JSON.parse(values.stdout)).toEqual([['alice', 'bob']])
    const raw = await runRegent(['eval', '-f', 'raw', 'x := "plain"; x'])
    expect(raw.stdout).toBe('true plain\n')
    const pretty = await runRegent(['eval', '-f', 'pretty', '--fail', 'x := 1; x > 1'])
    expect(pretty.stdout).toBe('undefined\n')
    expect(pretty.code).toBe(1)
  })

  it('gives opa.runtime() the environment, version and commit, as opa eval passes runtime.Term', async () => {
    const run = await runRegent([
      'eval',
      '-f',
      'values',
      'r := opa.runtime(); [object.keys(r), is_string(r.version)]',
    ])
    expect(JSON.parse(run.stdout)).toEqual([true, [['commit', 'env', 'version'], true]])
  })

  it('lets --import enable keywords in the query, as opa eval --import does', async () => {
    const q = 'x := 1; not { x == 2 }; x == 2 or x == 1'
    const ok = await runRegent(['eval', '-f', 'values', '--import', 'rego.v2', q])
    expect([ok.code, JSON.parse(ok.stdout)]).toEqual([0, [true, true, true]])
  })

  it('exits 2 (as opa eval) with OPA error JSON for compile and evaluation errors', async () => {
    const compileErr = await runRegent(['eval', 'x := y'])
    expect(compileErr.code).toBe(2)
    expect(JSON.parse(compileErr.stdout).errors[0]).toMatchObject({ code: 'rego_unsafe_var_error' })
    const evalErr = await runRegent(['eval', '--strict-builtin-errors', 'x := 1 / 0'])
    expect(evalErr.code).toBe(2)
    expect(JSON.parse(evalErr.stdout).errors[0]).toMatchObject({
      code: 'eval_builtin_error',
      message: 'div: divide by zero',
    })
  })

  it("prints a built-in's error as OPA's OutputError: message, code, location; the pretty text on stderr", async () => {
    const json = await runRegent(['eval', '--strict-builtin-errors', 'x := indexof("abc", "")'])
    expect(json.code).toBe(2)
    const [err] = JSON.parse(json.stdout).errors
    expect(Object.keys(err)).toEqual(['message', 'code', 'location'])
    expect(err).toMatchObject({ message: 'indexof: empty search character', code: 'eval_builtin_error' })
    const pretty = await runRegent([
      'eval',
      '-f',
      'pretty',
      '--strict-builtin-errors',
      'x := substring("abc", -1, 1)',
    ])
    expect(pretty.code).toBe(2)
    expect(pretty.stderr).toMatch(/^1 error occurred: .*eval_builtin_error: substring: negative offset\n$/)
  })

  it('type-checks input against a JSON Schema with -s, with and without -p', async () => {
    const schema = join(dir, 'input.schema.json')
    writeFileSync(schema, JSON.stringify({ properties: { user: { type: 'string' } } }))
    for (const partial of [[], ['-p']]) {
      const typo = await runRegent(['eval', ...partial, '-s', schema, 'input.usr == "alice"'])
      expect(typo.code).toBe(2)
      expect(JSON.parse(typo.stdout).errors[0]).toMatchObject({
        code: 'rego_type_error',
        message: 'undefined ref: input.usr',
        details: {
          ref: [
            { type: 'var', value: 'input' },
            { type: 'string', value: 'usr' },
          ],
          pos: 1,
          oneOf: ['user'],
        },
      })
    }
    const ok = await runRegent(['eval', '-s', schema, '-i', join(dir, 'input.json'), 'input.user == "alice"'])
    expect(ok.code).toBe(0)
    expect(JSON.parse(ok.stdout).result[0].expressions[0].value).toBe(true)
  })
})

describe('regent check (compile-level errors)', () => {
  it('reports unsafe variables and strict-mode errors after parsing', async () => {
    const bad = join(dir, 'bad.rego')
    writeFileSync(bad, 'package bad\n\np if count(y) > 1\n')
    const unsafe = await runRegent(['check', bad])
    expect(unsafe.code).toBe(1)
    expect(unsafe.stdout).toContain('rego_unsafe_var_error: var y is unsafe')
    const strictFile = join(dir, 'strict.rego')
    writeFileSync(strictFile, 'package s\n\nimport data.unused\n\np := 1\n')
    expect((await runRegent(['check', strictFile])).code).toBe(0)
    const strict = await runRegent(['check', '-S', '-f', 'json', strictFile])
    expect(strict.code).toBe(1)
    expect(JSON.parse(strict.stdout).errors[0]).toMatchObject({
      code: 'rego_compile_error',
      message: 'import data.unused unused',
    })
  })

  it('with --strict checks the policy, not the query: an assignment the query makes is its result', async () => {
    const policy = join(dir, 'strict-query.rego')
    writeFileSync(policy, 'package x\n\nfoo := 2\n')
    const ok = await runRegent(['eval', '--strict', '-d', policy, '-f', 'bindings', 'x := data.x.foo'])
    expect(ok).toMatchObject({ code: 0, stderr: '' })
    expect(JSON.parse(ok.stdout)).toEqual({ x: 2 })
    // The policy itself is still checked.
    writeFileSync(policy, 'package x\n\nimport data.unused\n\nfoo := 2\n')
    const bad = await runRegent(['eval', '--strict', '-d', policy, '-f', 'json', 'x := data.x.foo'])
    expect(bad.code).toBe(2)
    expect(JSON.parse(bad.stdout).errors[0].message).toBe('import data.unused unused')
  })

  it('treats `not a == b` as OPA does: true in a rule body on a missing ref, undefined as an ad-hoc query', async () => {
    writeFileSync(join(dir, 'neq.rego'), 'package neq\n\nr if not input.x == 1\n')
    writeFileSync(join(dir, 'empty.json'), '{}')
    const args = ['eval', '-f', 'json', '-d', join(dir, 'neq.rego'), '-i', join(dir, 'empty.json')]
    const rule = await runRegent([...args, 'data.neq.r'])
    expect(rule.code).toBe(0)
    expect(JSON.parse(rule.stdout).result[0].expressions[0].value).toBe(true)
    const query = await runRegent([...args, 'not input.x == 1'])
    expect(query.code).toBe(0)
    expect(query.stdout.trim()).toBe('{}')
  })
})
