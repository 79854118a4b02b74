/** How the shell reads one input: package, imports, rules, queries, incomplete text and errors. */
import { describe, expect, it } from 'vitest'
import { parseStatement, type StatementContext } from '../../../cli/repl/statements.js'

const context = (globals: string[] = []): StatementContext => ({
  regoVersion: 'v1',
  packageText: 'repl',
  imports: [],
  isGlobal: (name) => globals.includes(name),
})

const kind = (text: string, globals: string[] = [], final = false) =>
  parseStatement(text, context(globals), final).kind

describe('parseStatement', () => {
  it.each([
    'p := 1',
    'x = 1',
    'allow if input.x',
    'default allow := false',
    'f(x) := x + 1',
    'p contains x if { some x in [1] }',
    'import data.foo',
    'package a.b',
    'input := {"a": 1}',
  ])('reads %j as definitions', (text) => {
    expect(kind(text)).toBe('definitions')
  })

  it.each(['p', 'x = 1; y = 2', 'data.a[i] = x', 'not p', '1 + 1', '[a, b] := [1, 2]'])(
    'reads %j as a query',
    (text) => {
      expect(kind(text)).toBe('query')
    },
  )

  it('reads name = value as a comparison once name is a rule or import of the package', () => {
    expect(kind('x = 1', ['x'])).toBe('query')
  })

  it('waits for more lines while brackets are open or the text stops at its end', () => {
    for (const text of ['allow if {', 'x := [1,', 'p :=', '1 +', 'allow if'])
      expect(kind(text)).toBe('incomplete')
    expect(kind('allow if {', [], true)).toBe('error')
  })

  it('reports errors at the rows and columns of the text as typed', () => {
    const statement = parseStatement('p := 1\nq := [1,,2]', context(), false)
    expect(statement.kind).toBe('error')
    if (statement.kind !== 'error') return
    expect(statement.errors.errors.map((e) => [e.location?.row, e.location?.col, e.message])).toEqual([
      [2, 9, 'unexpected , token: expected term'],
      [2, 9, 'unexpected , token: expected rule value term (e.g., q := <VALUE> { ... })'],
    ])
  })

  it('gives rules the rows of the text as typed', () => {
    const statement = parseStatement('allow if {\n  input.x\n}', context(), false)
    expect(statement.kind).toBe('definitions')
    if (statement.kind !== 'definitions') return
    expect(statement.rules[0]?.location?.row).toBe(1)
    expect(statement.rules[0]?.body[0]?.location?.row).toBe(2)
  })
})
