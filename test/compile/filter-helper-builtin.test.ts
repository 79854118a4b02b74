/**
 * `filter.helper` (compile/filter-helper-builtin.ts and its library module): the rows a filter rule
 * lets through, computed by SQLite from the test's tables, masked; and `regent test` running a
 * test file that uses it, as a user would.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterAll, describe, expect, it } from 'vitest'
import { TEST_BUILTINS, withTestLibraries } from '../../cli/test-builtins.js'
import { createBuiltinContext } from '../../core/rego/builtins/context.js'
import { compilePolicy } from '../../core/rego/eval/policy.js'
import { parseModule } from '../../core/rego/index.js'
import type { Module } from '../../core/rego/syntax/ast.js'
import { toJSONText } from '../../core/rego/values/index.js'
import { runRegent } from '../support/run-cli.js'

const FILTERS = `package filters

# METADATA
# scope: document
# compile:
#   unknowns: ["input.fruits", "input.users"]
include if input.users.name == input.username

include if startswith(input.fruits.name, input.prefix)

mask.fruits.name.replace.value := "<name>"
mask.fruits.colour.replace.value := "<secret>"
mask.users.colour.replace.value := "<hidden>"
`

const TABLES = {
  fruits: [
    { id: 1, name: 'apple', owner: 'a', colour: 'red' },
    { id: 2, name: "o'range", owner: 'b', colour: 'orange' },
    { id: 3, name: 'Apricot', owner: 'b', colour: 'yellow' },
  ],
  users: [
    { id: 'a', name: 'jane', colour: 'blue' },
    { id: 'b', name: 'john', colour: 'green' },
  ],
}

const dir = mkdtempSync(join(tmpdir(), 'regent-filter-helper-'))
afterAll(() => rmSync(dir, { recursive: true, force: true }))

/** Evaluates `filter.helper(…)` with `withs`; the rows (sorted) and what was printed. */
async function helper(select: string, opts: unknown, withs: string, maskRule = true) {
  const modules = new Map<string, Module>([
    [
      'filters.rego',
      parseModule(
        maskRule
          ? FILTERS.replace('#   unknowns', '#   mask_rule: data.filters.mask\n#   unknowns')
          : FILTERS,
        {
          file: 'filters.rego',
        },
      ),
    ],
  ])
  const query = `x := data.system.eopa.utils.tests.v1.filter.helper("data.filters.include", ${JSON.stringify(select)}, ${JSON.stringify(TABLES)}, ${JSON.stringify(opts)}) ${withs}`
  const policy = compilePolicy(withTestLibraries(modules, query), {}, { builtins: TEST_BUILTINS })
  const printed: string[] = []
  const run = await policy.query(query).eval({
    ctx: createBuiltinContext({ print: (m) => printed.push(m), strictBuiltinErrors: true }),
    strictBuiltinErrors: true,
  })
  const x = run.results[0]?.bindings.get('x')
  const rows = x === undefined ? undefined : (JSON.parse(toJSONText(x)) as Array<Record<string, unknown>>)
  return { rows: rows?.sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b))), printed }
}

describe('filter.helper', () => {
  it('runs the rule’s clause over the tables, case-sensitive string matches included', async () => {
    const { rows } = await helper(
      'SELECT fruits.id, fruits.name FROM fruits LEFT JOIN users ON fruits.owner = users.id',
      {},
      'with input.username as "jane" with input.prefix as "A"',
      false,
    )
    // jane's apple, and Apricot (startswith "A"; not apple, whose "a" is lower case).
    expect(rows).toEqual([
      { id: 1, name: 'apple' },
      { id: 3, name: 'Apricot' },
    ])
  })

  it('adds the clause to a SELECT that has its own WHERE, and keeps quotes in values intact', async () => {
    const { rows, printed } = await helper(
      'SELECT fruits.name FROM fruits JOIN users ON fruits.owner = users.id WHERE fruits.id > 1',
      { debug: true },
      'with input.username as "john" with input.prefix as "none"',
      false,
    )
    expect(rows).toEqual([{ name: 'Apricot' }, { name: "o'range" }])
    expect(printed).toContain(
      "executing query SELECT fruits.name FROM fruits JOIN users ON fruits.owner = users.id WHERE fruits.id > 1 AND ((users.name = 'john' OR internal_startswith(fruits.name, 'none'))) against " +
        printed[0]?.split(' against ')[1],
    )
    const last = printed.at(-1) ?? ''
    expect(last.startsWith('list response: ')).toBe(true)
    expect(JSON.parse(last.slice('list response: '.length))).toHaveLength(2)
  })

  it('masks each result column by its name, or as `masking` says; warns when a name is ambiguous', async () => {
    const select =
      'SELECT fruits.name, fruits.colour, users.colour AS ucolour FROM fruits JOIN users ON fruits.owner = users.id'
    const withs = 'with input.username as "jane" with input.prefix as "none"'
    const plain = await helper(select, {}, withs)
    // `name`: one mask of that column name. `colour`: two (fruits and users), so kept, with a
    // warning. `ucolour`: no mask has that name.
    expect(plain.rows).toEqual([{ colour: 'red', name: '<name>', ucolour: 'blue' }])
    expect(plain.printed).toContain('WARN: SELECT with AS aliases can conflict with masking')
    expect(plain.printed).toContain('WARN: cannot guess mask mapping for result column "colour"')

    const mapped = await helper(
      select,
      { masking: { colour: 'fruits.colour', ucolour: 'users.colour' } },
      withs,
    )
    expect(mapped.rows).toEqual([{ colour: '<secret>', name: '<name>', ucolour: '<hidden>' }])
  })

  it('keeps the tables in the `db` file it is given, and drops them from its own database', async () => {
    const file = join(dir, 'kept.db')
    const kept = await helper(
      'SELECT users.id FROM users JOIN fruits ON fruits.owner = users.id',
      { db: file, debug: true },
      'with input.username as "jane" with input.prefix as "x"',
      false,
    )
    expect(kept.rows).toEqual([{ id: 'a' }])
    expect(kept.printed.some((l) => l.startsWith('executing query DROP'))).toBe(false)
    const db = new Database(file, { readonly: true })
    expect(db.prepare('SELECT count(*) AS n FROM fruits').get()).toEqual({ n: 3 })
    db.close()

    const own = await helper(
      'SELECT users.id FROM users JOIN fruits ON fruits.owner = users.id',
      { debug: true },
      'with input.username as "jane" with input.prefix as "x"',
      false,
    )
    expect(own.printed.filter((l) => l.startsWith('executing query DROP TABLE'))).toHaveLength(2)
    expect(own.printed[0]).toMatch(/ against file:[0-9a-f-]{36}\?mode=memory$/)
  })

  it('gives no rows when the rule lets none through', async () => {
    const modules = new Map<string, Module>([
      [
        'f.rego',
        parseModule(
          'package f\n\n# METADATA\n# scope: document\n# compile:\n#   unknowns: [input.t]\ninclude if false\n',
          { file: 'f.rego' },
        ),
      ],
    ])
    const query =
      'x := data.system.eopa.utils.tests.v1.filter.helper("data.f.include", "SELECT * FROM t", {"t": [{"a": 1}]}, {})'
    const policy = compilePolicy(withTestLibraries(modules, query), {}, { builtins: TEST_BUILTINS })
    const run = await policy.query(query).eval({})
    expect(toJSONText(run.results[0]?.bindings.get('x') ?? null)).toBe('[]')
  })

  it('raises a SELECT the database refuses, with its message, even where built-in errors are swallowed', async () => {
    const modules = new Map<string, Module>([
      ['filters.rego', parseModule(FILTERS, { file: 'filters.rego' })],
    ])
    const query =
      'x := data.system.eopa.utils.tests.v1.filter.helper("data.filters.include", "SELECT * FROM nope", {"t": [{"a": 1}]}, {}) with input.username as "jane"'
    const policy = compilePolicy(withTestLibraries(modules, query), {}, { builtins: TEST_BUILTINS })
    await expect(policy.query(query).eval({})).rejects.toThrow(
      "filter.helper: no such table: nope in WITH tmp AS (SELECT * FROM nope WHERE users.name = 'jane') SELECT * FROM tmp",
    )
  })

  it('is added only to policies that refer to it', () => {
    const plain = new Map<string, Module>([
      ['p.rego', parseModule('package p\n\nx := 1\n', { file: 'p.rego' })],
    ])
    expect(withTestLibraries(plain).size).toBe(1)
    const importing = new Map<string, Module>([
      [
        'p.rego',
        parseModule('package p\n\nimport data.system.eopa.utils.tests.v1.filter\n\nx := 1\n', {
          file: 'p.rego',
        }),
      ],
    ])
    expect([...withTestLibraries(importing).keys()]).toEqual(['p.rego', 'regent/filter-helper.rego'])
  })

  it('works from `regent test`, printing its queries with -v', async () => {
    const folder = mkdtempSync(join(dir, 'cli-'))
    writeFileSync(join(folder, 'filters.rego'), FILTERS)
    writeFileSync(
      join(folder, 'filters_test.rego'),
      `package filters

import data.system.eopa.utils.tests.v1.filter

test_jane_sees_her_fruit if {
  rows := filter.helper(
    "data.filters.include",
    "SELECT fruits.name FROM fruits LEFT JOIN users ON fruits.owner = users.id",
    ${JSON.stringify(TABLES)},
    {"debug": true},
  ) with input.username as "jane" with input.prefix as "none"
  rows == [{"name": "apple"}]
}
`,
    )
    const { code, stdout } = await runRegent(['test', folder, '-v'])
    expect(stdout).toContain('data.filters.test_jane_sees_her_fruit: PASS')
    expect(stdout).toMatch(
      /^ {2}executing query CREATE TABLE fruits \(colour ANY, id ANY, name ANY, owner ANY\) against file:/m,
    )
    expect(stdout).toContain(
      '  rego.compile response: {"query":"WHERE (users.name = \'jane\' OR internal_startswith(fruits.name, \'none\'))"}',
    )
    expect(code).toBe(0)
  })
})
