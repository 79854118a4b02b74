/**
 * Parenthesised `and` / `or` groups (`a or (b or c)`, `(a or b) and c`, `not (a or b)`): the
 * grouping they give the AST, the parenthesised terms they leave alone, and their evaluation.
 */
import { describe, expect, it } from 'vitest'
import { compile, parseModule } from '../../../../core/rego/index.js'
import type { Expr, LogicalExpr } from '../../../../core/rego/syntax/ast.js'
import { fromJS, toJS } from '../../../../core/rego/values/index.js'

const IMPORTS = 'package p\n\nimport future.keywords.and\nimport future.keywords.or\n\n'

function only(src: string): Expr {
  const e = parseModule(`${IMPORTS}${src}`, { file: 'p.rego' }).rules[0]?.body[0]
  if (!e) throw new Error('no body')
  return e
}

function logical(e: Expr | undefined): LogicalExpr {
  const t = e?.terms
  if (!t || Array.isArray(t) || (t.type !== 'and' && t.type !== 'or')) throw new Error('not and/or')
  return t
}

describe('and/or groups: parsing', () => {
  it('a group on the right stays nested', () => {
    const t = logical(only('p if input.a or (input.b or input.c)'))
    expect(t.type).toBe('or')
    expect(logical(t.rhs[0]).type).toBe('or')
  })

  it('a lower-precedence group binds first', () => {
    const t = logical(only('p if (input.a or input.b) and input.c'))
    expect(t.type).toBe('and')
    expect(logical(t.lhs[0]).type).toBe('or')
  })

  it('nested and doubled parentheses are groups too', () => {
    expect(logical(only('p if { ((input.a or input.b)) }')).type).toBe('or')
  })

  it('not (group) negates the whole group', () => {
    const t = only('p if not (input.a or input.b)').terms
    if (Array.isArray(t) || t.type !== 'not') throw new Error('not a not-body')
    expect(logical(t.body[0]).type).toBe('or')
  })

  it('parentheses around a term followed by an operator stay a term', () => {
    const t = logical(only('p if ({1, 2}) & input.s == set() and input.a'))
    expect(Array.isArray(t.lhs[0]?.terms)).toBe(true)
  })
})

describe('and/or groups: evaluation', () => {
  const policy = compile(
    {
      'p.rego': parseModule(
        `${IMPORTS}p if input.a or (input.b and input.c)\n\nq if not (input.a or input.b)\n\nr if (input.a or input.b) and input.c\n`,
        { file: 'p.rego' },
      ),
    },
    {},
  )
  const run = (input: unknown) =>
    toJS(
      policy
        .prepare('x := data.p')
        .evalSync({ input: fromJS(input) })
        .results[0]?.bindings.get('x') as never,
    )

  it('groups as the parentheses say', () => {
    expect(run({ a: false, b: true, c: true })).toEqual({ p: true, r: true })
    expect(run({ a: false, b: false, c: true })).toEqual({ q: true })
    expect(run({ a: true, b: false, c: false })).toEqual({ p: true })
  })
})
