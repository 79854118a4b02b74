import { mkdtempSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { describe, expect, it } from 'vitest'
import { runRegent } from '../support/run-cli.js'

const dir = mkdtempSync(join(tmpdir(), 'regent-parse-'))
const good = join(dir, 'good.rego')
writeFileSync(good, 'package a\n\n# note\nallow if input.user == "alice"\n')
const bad = join(dir, 'bad.rego')
writeFileSync(bad, 'package a\n\nallow if {\n\tinput.user ==\n}\n')

describe('regent parse', () => {
  it('prints OPA AST JSON, with comments and without locations by default', async () => {
    const { code, stdout } = await runRegent(['parse', good, '-f', 'json'])
    expect(code).toBe(0)
    const ast = JSON.parse(stdout) as {
      package: unknown
      rules: Array<{ head: unknown }>
      comments: unknown[]
    }
    expect(ast.package).toEqual({
      path: [
        { type: 'var', value: 'data' },
        { type: 'string', value: 'a' },
      ],
    })
    expect(ast.rules[0]?.head).toEqual({
      name: 'allow',
      ref: [{ type: 'var', value: 'allow' }],
      value: { type: 'boolean', value: true },
    })
    expect(ast.comments).toHaveLength(1)
    expect(stdout).not.toContain('"location"')
  })

  it('adds locations and drops comments with --json-include', async () => {
    const { code, stdout } = await runRegent([
      'parse',
      good,
      '-f',
      'json',
      '--json-include',
      'locations,-comments',
    ])
    expect(code).toBe(0)
    const ast = JSON.parse(stdout) as Record<string, unknown>
    expect(ast).not.toHaveProperty('comments')
    expect(stdout).toContain(`"location": {\n`)
    expect(stdout).toContain('"row": 4')
  })

  it('with --json-include locations, prints them as opa parse does: source text, head fields, generated body', async () => {
    const file = join(dir, 'located.rego')
    writeFileSync(file, 'package x\n\np = 1\n')
    const { code, stdout } = await runRegent(['parse', file, '-f', 'json', '--json-include', 'locations'])
    expect(code).toBe(0)
    const rule = JSON.parse(stdout).rules[0]
    // OPA's cmd/parse_test.go TestParseJSONOutputWithLocations: the generated body sits at the value.
    const at1 = { file, row: 3, col: 5, text: Buffer.from('1').toString('base64') }
    expect(rule.body[0]).toEqual({
      index: 0,
      location: at1,
      terms: { location: at1, type: 'boolean', value: true },
    })
    expect(Object.keys(rule.head)).toEqual(['name', 'value', 'ref', 'location'])
    expect(rule.head.location).toEqual({
      file,
      row: 3,
      col: 1,
      text: Buffer.from('p = 1').toString('base64'),
    })
  })

  it('prints a tree by default', async () => {
    const { code, stdout } = await runRegent(['parse', good])
    expect(code).toBe(0)
    expect(stdout.split('\n').slice(0, 3)).toEqual(['module', ' package', '  ref'])
  })

  it('prints the tree as opa parse does: type names and values in AST walk order, nothing else', async () => {
    const file = join(dir, 'tree.rego')
    writeFileSync(file, 'package x\n\np = 1\n\nf(a) := {"k": a} if not a == 2\n')
    const { code, stdout } = await runRegent(['parse', file])
    expect(code).toBe(0)
    // The first rule is OPA's cmd/parse_test.go TestParseExit0 case.
    expect(stdout).toBe(
      [
        'module',
        ' package',
        '  ref',
        '   data',
        '   "x"',
        ' rule',
        '  head',
        '   ref',
        '    p',
        '   1',
        '  body',
        '   expr index=0',
        '    true',
        ' rule',
        '  head',
        '   ref',
        '    f',
        '   args',
        '    a',
        '   object',
        '    "k"',
        '    a',
        '  body',
        '   expr negated index=0',
        '    ref',
        '     equal',
        '    a',
        '    2',
        '',
      ].join('\n'),
    )
  })

  it('reports parse errors with location and caret on stderr (stdout is for the AST), exit 1', async () => {
    const { code, stdout, stderr } = await runRegent(['parse', bad])
    expect(code).toBe(1)
    expect(stdout).toBe('')
    expect(stderr).toBe(
      `1 error occurred: ${bad}:5: rego_parse_error: unexpected } token: expected term\n\t}\n\t^\n`,
    )
  })

  it('rejects an unknown format as a usage error (exit 2)', async () => {
    const { code, stderr } = await runRegent(['parse', good, '-f', 'yaml'])
    expect(code).toBe(2)
    expect(stderr).toContain('yaml')
  })
})
