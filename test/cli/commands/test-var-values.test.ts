/**
 * `regent test --var-values` draws the failing expression as OPA's `topdown.PrettyEvent` does; the
 * cases and expected drawings are those of OPA's cmd/test_test.go (TestFailVarValues).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { runRegent } from '../../support/run-cli.js'

let dir: string
let stdout: string

const rego = [
  'package test',
  '',
  'test_simple if {',
  '\tx := 1',
  '\ty := 2',
  '\tz := 3',
  '\tx == y + z',
  '}',
  '',
  'test_not if {',
  '\tx := 5',
  '\ty := 2',
  '\tz := 3',
  '\tnot x == y + z',
  '}',
  '',
  'test_var_key if {',
  '\tx := 1',
  '\ty := [1, 2, 3]',
  '\tz := 3',
  '\ti := 2',
  '\tx == y[i] + z',
  '}',
  '',
  'a := 1',
  '',
  'b := data.b',
  '',
  'test_undefined if {',
  '\t[a, b, data.c] == [4, 5, 6]',
  '}',
  '',
  'p contains v if {',
  '\tsome v in numbers.range(1, 3)',
  '}',
  '',
  'test_rule if {',
  '\tp == {4, 5, 6}',
  '}',
  '',
  'allowed if input.a == 1',
  '',
  'test_negated_rule if {',
  '\tnot data.test.allowed with input as {"a": 1}',
  '}',
  '',
  '\ttest_tabs if {',
  '\t\tx := 1',
  '\t\ty := 2',
  '\t\tz := 3',
  '\t\tobj := {"foo_": 1, "bar__": 42, "baz": 3}',
  '\t\tobj == {',
  '\t\t\t"foo_":\t\tx,',
  '\t\t\t"bar__":\ty,',
  '\t\t\t"baz":\t\tz,',
  '\t\t}',
  '\t}',
  '',
].join('\n')

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), 'regent-var-values-'))
  writeFileSync(join(dir, 'test.rego'), rego)
  writeFileSync(join(dir, 'data.json'), '{"c": 3}')
  const r = await runRegent(['test', dir, '--var-values'])
  expect(r.code).toBe(2)
  stdout = r.stdout
})

afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** The drawing under `name` in FAILURES (its lines, the 4-space indentation removed). */
function drawing(name: string): string[] {
  const failures = stdout.slice(stdout.indexOf('FAILURES'))
  const start = failures.indexOf(`data.test.${name}: FAIL`)
  expect(start).toBeGreaterThanOrEqual(0)
  const block = failures.slice(start).split('\n\n')[1] as string
  const [header, ...lines] = block.split('\n')
  expect(header).toMatch(/^ {2}.*test\.rego:\d+:$/)
  return lines.map((l) => l.replace(/^ {4}/, ''))
}

describe('regent test --var-values', () => {
  it('points at each variable and at each sub-expression the compiler split off', () => {
    expect(drawing('test_simple')).toEqual([
      '\tx == y + z',
      '\t|    |   |',
      '\t|    |   3',
      '\t|    y + z: 5',
      '\t|    y: 2',
      '\t1',
    ])
  })

  it('draws a negated expression from its `not`', () => {
    expect(drawing('test_not')).toEqual([
      '\tnot x == y + z',
      '\t    |    |   |',
      '\t    |    |   3',
      '\t    |    y + z: 5',
      '\t    |    y: 2',
      '\t    5',
    ])
  })

  it('shows refs by their text, a variable key on its own column', () => {
    expect(drawing('test_var_key')).toEqual([
      '\tx == y[i] + z',
      '\t|    | |    |',
      '\t|    | |    3',
      '\t|    | 2',
      '\t|    y[i] + z: 6',
      '\t|    y[i]: 3',
      '\t|    y: [1, 2, 3]',
      '\t1',
    ])
  })

  it('draws the written expression when a part split off from it is undefined', () => {
    expect(drawing('test_undefined')).toEqual([
      '\t[a, b, data.c] == [4, 5, 6]',
      '\t |  |',
      '\t |  undefined',
      '\t 1',
    ])
  })

  it('shows the value of a compared rule (the compiler binds it to a variable first)', () => {
    expect(drawing('test_rule')).toEqual(['\tp == {4, 5, 6}', '\t|', '\t{1, 2, 3}'])
  })

  it("shows a negated rule's value under its ref, as OPA's virtual cache snapshot does", () => {
    expect(drawing('test_negated_rule')).toEqual([
      '\tnot data.test.allowed with input as {"a": 1}',
      '\t    |',
      '\t    true',
    ])
  })

  it('lists the values under Where: for an expression over lines with tabs', () => {
    expect(drawing('test_tabs')).toEqual([
      '\t\tobj == {',
      '\t\t\t"foo_":\t\tx,',
      '\t\t\t"bar__":\ty,',
      '\t\t\t"baz":\t\tz,',
      '\t\t}',
      '',
      'Where:',
      '',
      'obj: {"bar__": 42, "baz": 3, "foo_": 1}',
      'x: 1',
      'y: 2',
      'z: 3',
    ])
  })
})
