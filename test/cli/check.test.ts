import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runRegent } from '../support/run-cli.js'

const dir = mkdtempSync(join(tmpdir(), 'regent-check-'))
mkdirSync(join(dir, 'ok'))
writeFileSync(join(dir, 'ok', 'a.rego'), 'package a\n\nallow if input.x\n')
writeFileSync(join(dir, 'ok', 'b.rego'), 'package b\n\ndeny contains 1 if input.y\n')
writeFileSync(join(dir, 'ok', 'notes.txt'), 'not rego')
mkdirSync(join(dir, 'broken'))
writeFileSync(join(dir, 'broken', 'c.rego'), 'package c\n\np := [\n\nq := 1 +\n\nr := )\n')
writeFileSync(join(dir, 'broken', 'v0.rego'), 'package d\n\np[x] { x := 1 }\n')
mkdirSync(join(dir, 'typed'))
writeFileSync(
  join(dir, 'typed', 'review.rego'),
  'package review\n\ndeny if input.request.kinds == "Pod"\n\nok if startswith(input.request.kind, "P")\n',
)
writeFileSync(
  join(dir, 'input.schema.json'),
  JSON.stringify({
    type: 'object',
    properties: {
      request: { type: 'object', properties: { kind: { type: 'string' }, uid: { type: 'string' } } },
    },
  }),
)
writeFileSync(join(dir, 'broken.schema.json'), '{"type": ')
mkdirSync(join(dir, 'bundle', 'authz'), { recursive: true })
writeFileSync(
  join(dir, 'bundle', 'authz', 'policy.rego'),
  'package authz\n\nallow if input.user == "alice"\n',
)
writeFileSync(join(dir, 'bundle', '.manifest'), '{"roots": ["authz"]}')
mkdirSync(join(dir, 'outside', 'other'), { recursive: true })
writeFileSync(join(dir, 'outside', 'other', 'policy.rego'), 'package other\n\nallow := true\n')
writeFileSync(join(dir, 'outside', '.manifest'), '{"roots": ["authz"]}')

mkdirSync(join(dir, 'data-conflict'))
writeFileSync(join(dir, 'data-conflict', 'policy.rego'), 'package p\n\nallow := false\n')
writeFileSync(join(dir, 'data-conflict', 'data.json'), '{"p": {"allow": false}}')

mkdirSync(join(dir, 'filter-tests'))
writeFileSync(
  join(dir, 'filter-tests', 'filters_test.rego'),
  [
    'package filters_test',
    '',
    'import data.system.eopa.utils.tests.v1.filter',
    '',
    'test_compiled if rego.compile({"query": "data.filters.include", "target": "sql+postgresql"})',
    '',
    'test_helper if filter.helper("data.filters.include", "SELECT * FROM t", {"t": [{"a": 1}]}, {})',
    '',
  ].join('\n'),
)
writeFileSync(join(dir, 'no-builtins.json'), '{"builtins": []}')

describe('regent check', () => {
  it('is silent and exits 0 when every file parses', async () => {
    const { code, stdout, stderr } = await runRegent(['check', join(dir, 'ok')])
    expect({ code, stdout, stderr }).toEqual({ code: 0, stdout: '', stderr: '' })
  })

  it('prints all errors with locations and exits 1', async () => {
    const { code, stdout } = await runRegent(['check', join(dir, 'broken')])
    expect(code).toBe(1)
    // c.rego: the unclosed array (reported where `q :=` breaks it) and `r := )`, after recovery,
    // each followed by OPA's "expected rule value term" error; v0.rego: the two v1 keyword errors.
    expect(stdout).toMatch(/^6 errors occurred:\n/)
    expect(stdout).toContain(`${join(dir, 'broken', 'c.rego')}:5: rego_parse_error`)
    expect(stdout).toContain(`${join(dir, 'broken', 'c.rego')}:7: rego_parse_error: unexpected ) token`)
    expect(stdout).toContain('`if` keyword is required before rule body')
  })

  it('knows the filter test built-ins regent test offers, unless a capabilities file leaves them out', async () => {
    const tests = join(dir, 'filter-tests')
    expect((await runRegent(['check', tests])).code).toBe(0)
    const limited = await runRegent(['check', '--capabilities', join(dir, 'no-builtins.json'), tests])
    expect(limited.code).toBe(1)
    expect(limited.stdout).toContain('undefined function rego.compile')
  })

  it('prints OPA error JSON with -f json', async () => {
    const { code, stdout } = await runRegent(['check', '-f', 'json', join(dir, 'broken', 'v0.rego')])
    expect(code).toBe(1)
    const out = JSON.parse(stdout) as { errors: Array<{ code: string; location: { row: number } }> }
    expect(out.errors.map((e) => [e.code, e.location.row])).toEqual([
      ['rego_parse_error', 3],
      ['rego_parse_error', 3],
    ])
  })

  it('stops after --max-errors and says so', async () => {
    const { code, stdout } = await runRegent(['check', '-m', '1', '-f', 'json', join(dir, 'broken')])
    expect(code).toBe(1)
    const out = JSON.parse(stdout) as { errors: Array<{ message: string }> }
    expect(out.errors.map((e) => e.message)).toEqual([expect.any(String), 'error limit reached'])
  })

  it('accepts v0 syntax with --v0-compatible', async () => {
    const { code } = await runRegent(['check', '--v0-compatible', join(dir, 'broken', 'v0.rego')])
    expect(code).toBe(0)
  })

  it('reports a missing path without a stack trace', async () => {
    const { code, stderr } = await runRegent(['check', join(dir, 'nope.rego')])
    expect(code).toBe(1)
    expect(stderr).toMatch(/^regent: ENOENT/)
  })

  it('checks input refs against a JSON Schema with -s', async () => {
    const schema = join(dir, 'input.schema.json')
    const { code, stdout } = await runRegent(['check', '-s', schema, join(dir, 'typed')])
    expect(code).toBe(1)
    expect(stdout).toBe(
      `1 error occurred: ${join(dir, 'typed', 'review.rego')}:3: rego_type_error: undefined ref: input.request.kinds\n` +
        '\tinput.request.kinds\n' +
        `\t${' '.repeat(14)}^\n` +
        `\t${' '.repeat(14)}have: "kinds"\n` +
        `\t${' '.repeat(14)}want (one of): ["kind" "uid"]\n`,
    )
    expect((await runRegent(['check', join(dir, 'typed')])).code).toBe(0)
  })

  it('refuses an unreadable schema, or a schema directory holding a file that is not JSON, with a message', async () => {
    const bad = await runRegent(['check', '-s', join(dir, 'broken.schema.json'), join(dir, 'ok')])
    expect(bad.code).toBe(1)
    expect(bad.stderr).toMatch(/^regent: schema .*broken\.schema\.json: not JSON/)
    // As OPA's loader.Schemas, every file under the directory is read as a schema.
    const folder = await runRegent(['check', '-s', join(dir, 'ok'), join(dir, 'ok')])
    expect(folder.code).toBe(1)
    expect(folder.stderr).toMatch(/^regent: schema .*a\.rego: not JSON/)
  })

  it('reads bundles with -b, manifest roots included', async () => {
    expect(await runRegent(['check', '-b', join(dir, 'bundle')])).toMatchObject({
      code: 0,
      stdout: '',
      stderr: '',
    })
    const outside = await runRegent(['check', '-b', join(dir, 'outside')])
    expect(outside.code).toBe(1)
    expect(outside.stderr).toContain('manifest roots ["authz"] do not permit package other')
  })

  it('with -b, reports bundle data where a rule is defined (OPA: conflicting rule for data path)', async () => {
    const r = await runRegent(['check', '-b', join(dir, 'data-conflict')])
    expect(r.code).toBe(1)
    expect(r.stdout).toBe(
      `1 error occurred: ${join(dir, 'data-conflict', 'policy.rego')}:3: rego_compile_error: conflicting rule for data path p/allow found\n`,
    )
    // Without -b, check reads no data files at all.
    expect(await runRegent(['check', join(dir, 'data-conflict')])).toMatchObject({ code: 0, stdout: '' })
  })
})
