import { describe, expect, it } from 'vitest'
import { checkFragments } from '../../../compile/fragments/check.js'
import { ConstraintSet } from '../../../compile/fragments/constraints.js'
import { parseTargetDialects } from '../../../compile/targets.js'
import type { Body, Module } from '../../../core/rego/syntax/ast.js'
import { moduleOf, residual, residualOf } from '../residual.js'

function check(queries: Body[], tuples: string[], opts: { shorts?: string[]; support?: Module[] } = {}) {
  return checkFragments(queries, {
    constraints: new ConstraintSet(parseTargetDialects(tuples)),
    shortNames: new Set(opts.shorts ?? []),
    support: opts.support ?? [],
  })
}

const messages = (queries: Body[], tuples: string[], opts = {}) =>
  check(queries, tuples, opts).map((e) => e.message)

describe('checkFragments', () => {
  it('accepts what every target can say', () => {
    const ok = residual(
      'input.fruits.price > 10; input.fruits.name == "apple"',
      'input.fruits.colour in {"a", "b"}',
    )
    for (const t of ['sql+postgresql', 'sql+sqlite', 'ucast+all', 'ucast+prisma', 'ucast+linq']) {
      expect(check(ok, [t])).toEqual([])
    }
    expect(messages(ok, ['ucast+minimal'])).toEqual(['invalid builtin `in`: unsupported for UCAST'])
  })

  it('joins the refusals of several targets, one line each', () => {
    expect(
      messages(residual('startswith(input.fruits.name, "a")'), ['ucast+linq', 'sql+sqlite', 'sql+mysql']),
    ).toEqual(['invalid builtin `startswith`: unsupported for UCAST (LINQ)\nunsupported for SQL (sqlite)'])
    expect(messages(residual('not input.fruits.x == 1'), ['ucast+linq', 'ucast+minimal'])).toEqual([
      '"not" not permitted: unsupported feature "not" for UCAST (LINQ)\nunsupported feature "not" for UCAST',
    ])
  })

  it('knows which targets compare two fields and which test existence', () => {
    const twoFields = residual('input.fruits.colour == input.baskets.colour')
    expect(messages(twoFields, ['ucast+prisma'])).toEqual([
      'reference to field: unsupported feature "field-ref" for UCAST (prisma)',
    ])
    expect(check(twoFields, ['ucast+all', 'sql+sqlserver'])).toEqual([])
    const exists = residual('input.fruits.colour = _')
    expect(check(exists, ['ucast+prisma', 'sql+sqlite'])).toEqual([])
    expect(messages(exists, ['ucast+all'])).toEqual([
      'existence of field: unsupported feature "existence-ref" for UCAST (all)',
    ])
    expect(messages(residual('input.fruits.colour != _'), ['sql+postgresql'])).toEqual([
      'both rhs and lhs non-scalar/non-ground',
    ])
  })

  it('reports statements at the expression and operands at the operator', () => {
    const queries = residualOf(
      'package filters\ninclude if {\n  every x in input.fruits.tags { x > 1 }\n  input.fruits.a == 1 with input.y as 2\n  input.fruits.b.c.d == 1\n  input.fruits.e <= count(input.fruits.f)\n}\n',
    )
    expect(check(queries, ['sql+postgresql'])).toEqual([
      {
        code: 'pe_fragment_error',
        message: '"every" not permitted',
        location: { file: 'filters.rego', row: 3, col: 3 },
      },
      {
        code: 'pe_fragment_error',
        message: '"with" not permitted',
        location: { file: 'filters.rego', row: 4, col: 3 },
      },
      {
        code: 'pe_fragment_error',
        message: 'eq: invalid ref operand: input.fruits.b.c.d',
        location: { file: 'filters.rego', row: 5, col: 3 },
      },
      {
        code: 'pe_fragment_error',
        message: 'lte: nested call operand: count(input.fruits.f)',
        location: { file: 'filters.rego', row: 6, col: 18 },
      },
    ])
  })

  it('accepts two-part refs only for mapped short names', () => {
    const q = residual('input.name == "x"')
    expect(messages(q, ['sql+postgresql'])).toEqual(['eq: invalid ref operand: input.name'])
    expect(check(q, ['sql+postgresql'], { shorts: ['name'] })).toEqual([])
  })

  it('names the rule behind a support reference', () => {
    const support = moduleOf(
      'package partial.filters\ndefault only := false\nonly if input.fruits.name == "pineapple"\nmulti contains 1 if input.fruits.a == 1\nmulti contains 2 if input.fruits.b == 1\nkept if input.fruits.c == 1\n',
    )
    const q = residual('data.partial.filters.only', 'data.partial.filters.multi', 'data.partial.filters.kept')
    expect(messages(q, ['sql+postgresql'], { support: [support] })).toEqual([
      'use of default rule in data.filters.only',
      'use of multi-value rule in data.filters.multi',
      'use of rule data.filters.kept, which partial evaluation did not inline',
    ])
  })

  it('explains naked terms and unknown functions', () => {
    expect(check(residual('data.filters.other'), ['sql+mysql'])[0]).toMatchObject({
      message: 'invalid data reference "data.filters.other"',
      details: { details: 'has rule "data.filters.other" an `else`?' },
    })
    expect(check(residual('input.fruits.ripe'), ['sql+mysql'])[0]).toMatchObject({
      message: 'invalid statement "input.fruits.ripe"',
      details: { details: 'try `input.fruits.ripe != false`' },
    })
    expect(messages(residual('object.get(input, "x", 1) == input.fruits.x'), ['sql+mysql'])).toEqual([
      'eq: nested call operand: object.get(input, "x", 1)',
    ])
    expect(messages(residual('regex.match("a", input.fruits.x)'), ['sql+mysql'])).toEqual([
      'invalid builtin `regex.match`',
    ])
    expect(messages(residual('"a" in input.fruits.tags'), ['sql+mysql'])).toEqual([
      'rhs of internal.member_2 must be known',
    ])
  })
  it('gives an error about an expression without a location no location, as the reference does', () => {
    // As partial evaluation may build an expression: `1 < input.fruits.a.b` with neither the
    // expression nor its operator located. An operand error still points at the operand; a
    // built-in error has only the operator's and the expression's locations to go by.
    const [body] = residual('1 < input.fruits.a.b; input.fruits.c = _')
    const unlocated = (body ?? []).map((e) => {
      const { location: _, ...rest } = e
      const terms = Array.isArray(rest.terms)
        ? [{ ...rest.terms[0]!, location: undefined }, ...rest.terms.slice(1)]
        : rest.terms
      return { ...rest, terms } as typeof e
    })
    expect(check([unlocated], ['ucast+linq']).map((e) => [e.message, e.location])).toEqual([
      ['lt: invalid ref operand: input.fruits.a.b', { file: 'filters.rego', row: 3, col: 5 }],
      ['existence of field: unsupported feature "existence-ref" for UCAST (LINQ)', undefined],
    ])
  })
})
