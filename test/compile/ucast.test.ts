import { LosslessNumber } from 'lossless-json'
import { describe, expect, it } from 'vitest'
import { CompileFailure } from '../../compile/errors.js'
import { serializeJson } from '../../compile/response.js'
import { type Decision, queriesToUcast } from '../../compile/ucast.js'
import { residual } from './residual.js'

/** The decision as plain JSON (numbers as JSON numbers). */
function ucast(...bodies: string[]): unknown {
  const d = queriesToUcast(residual(...bodies), undefined)
  return JSON.parse(serializeJson(d, false))
}

function node(d: Decision): unknown {
  if (d.kind !== 'condition') throw new Error(`no condition: ${d.kind}`)
  return JSON.parse(serializeJson(d.node, false))
}

function translationErrors(...bodies: string[]): string[] {
  try {
    queriesToUcast(residual(...bodies), undefined)
  } catch (err) {
    if (err instanceof CompileFailure) return (err.errors ?? []).map((e) => e.message)
    throw err
  }
  throw new Error('expected a translation error')
}

describe('queriesToUcast', () => {
  it('decides never for no query and always for an empty query', () => {
    expect(queriesToUcast([], undefined)).toEqual({ kind: 'never' })
    expect(queriesToUcast([[], ...residual('input.fruits.price > 1')], undefined)).toEqual({ kind: 'always' })
  })

  it('builds field nodes with the operand on either side; flipped comparisons mirror', () => {
    expect(node(queriesToUcast(residual('input.fruits.price <= 10'), undefined))).toEqual({
      type: 'field',
      operator: 'lte',
      field: 'fruits.price',
      value: 10,
    })
    const mirrored = { '<': 'gt', '<=': 'gte', '>': 'lt', '>=': 'lte', '==': 'eq', '!=': 'ne' }
    for (const [op, want] of Object.entries(mirrored)) {
      expect(ucast(`10 ${op} input.fruits.price`)).toMatchObject({
        kind: 'condition',
        node: { operator: want, field: 'fruits.price', value: 10 },
      })
    }
  })

  it('keeps number text exactly and writes strings, booleans and null', () => {
    const d = queriesToUcast(residual('input.t.a == 12345678901234567890.50'), undefined)
    expect(d.kind === 'condition' && d.node.type === 'field' && d.node.value).toEqual(
      new LosslessNumber('12345678901234567890.50'),
    )
    expect(serializeJson(d, false)).toContain('"value":12345678901234567890.50')
    expect(ucast('input.t.a == "x"; input.t.b == true; input.t.c == null')).toEqual({
      kind: 'condition',
      node: {
        type: 'compound',
        operator: 'and',
        value: [
          { type: 'field', operator: 'eq', field: 't.a', value: 'x' },
          { type: 'field', operator: 'eq', field: 't.b', value: true },
          { type: 'field', operator: 'eq', field: 't.c', value: null },
        ],
      },
    })
  })

  it('joins several queries with or, without flattening, in order', () => {
    expect(ucast('input.a.x == 1', 'input.a.y == 2; input.a.z == 3')).toEqual({
      kind: 'condition',
      node: {
        type: 'compound',
        operator: 'or',
        value: [
          { type: 'field', operator: 'eq', field: 'a.x', value: 1 },
          {
            type: 'compound',
            operator: 'and',
            value: [
              { type: 'field', operator: 'eq', field: 'a.y', value: 2 },
              { type: 'field', operator: 'eq', field: 'a.z', value: 3 },
            ],
          },
        ],
      },
    })
  })

  it('wraps negated expressions in not, and writes x = _ as "ne null"', () => {
    expect(ucast('not input.fruits.name == "apple"')).toEqual({
      kind: 'condition',
      node: {
        type: 'compound',
        operator: 'not',
        value: [{ type: 'field', operator: 'eq', field: 'fruits.name', value: 'apple' }],
      },
    })
    expect(ucast('input.fruits.colour = _')).toMatchObject({
      node: { operator: 'ne', field: 'fruits.colour', value: null },
    })
    expect(ucast('_ = input.fruits.colour')).toMatchObject({ node: { operator: 'ne', value: null } })
  })

  it('writes field references, in-lists (sets sorted and unique) and string matches', () => {
    expect(ucast('input.fruits.colour == input.baskets.colour')).toMatchObject({
      node: { operator: 'eq', field: 'fruits.colour', value: { field: 'baskets.colour' } },
    })
    expect(ucast('input.fruits.name in {"pear", "apple", 3, null, "apple", false}')).toMatchObject({
      node: { operator: 'in', value: [null, false, 3, 'apple', 'pear'] },
    })
    expect(ucast('input.fruits.name in ["pear", "apple"]')).toMatchObject({
      node: { value: ['pear', 'apple'] },
    })
    // Rego's `in` over an object tests its values.
    expect(ucast('input.fruits.name in {"k": "grey", "j": "blue"}')).toMatchObject({
      node: { operator: 'in', value: ['grey', 'blue'] },
    })
    for (const op of ['startswith', 'endswith', 'contains']) {
      expect(ucast(`${op}(input.fruits.name, "ap")`)).toMatchObject({ node: { operator: op, value: 'ap' } })
    }
  })

  it('sorts numbers in sets by value, not by text', () => {
    expect(ucast('input.t.n in {10, 9, 1e1, -2, 0.5, 100}')).toMatchObject({
      node: { value: [-2, 0.5, 9, 10, 100] },
    })
  })

  it('applies table and column mappings to fields and field references', () => {
    const mappings = { fruits: { $self: 'FRUIT', colour: 'COLOUR' }, baskets: { $self: 'b' } }
    const d = queriesToUcast(residual('input.fruits.colour == input.baskets.colour'), mappings)
    expect(node(d)).toEqual({
      type: 'field',
      operator: 'eq',
      field: 'FRUIT.COLOUR',
      value: { field: 'b.colour' },
    })
  })

  it('refuses what it cannot translate instead of dropping it', () => {
    expect(translationErrors('input.fruits[0] == 1')[0]).toBe(
      'cannot translate "input.fruits[0] = 1": a field name must be a string',
    )
    expect(translationErrors('input.fruits.x = y; y > 1')[0]).toMatch(/variable y is used elsewhere/)
    expect(translationErrors('startswith(input.fruits.x, input.fruits.y)')[0]).toMatch(
      /startswith cannot take a field as its second operand/,
    )
    expect(translationErrors('input.fruits.x in "abc"')[0]).toMatch(/not an array, set or object/)
    expect(translationErrors('startswith(input.fruits.x, 1)')[0]).toMatch(/startswith needs a string/)
    expect(translationErrors('x > 1')[0]).toMatch(/neither operand is a field/)
    expect(translationErrors('input.fruits.x == [y]')[0]).toMatch(/not a constant/)
    expect(translationErrors('not input.fruits.x = _')[0]).toMatch(/existence test has no SQL or UCAST form/)
    const errors = translationErrors('input.fruits[0] == 1; input.fruits.ok == 1; x > 1')
    expect(errors).toHaveLength(2)
  })
})
