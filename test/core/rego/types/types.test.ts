import { describe, expect, it } from 'vitest'
import {
  isSubtype,
  keysOf,
  overlaps,
  selectType,
  t,
  typeFromJSON,
  typeOf,
  typeToJSON,
  typeToString,
  unionOf,
  valuesOf,
} from '../../../../core/rego/types/index.js'
import { Value } from '../../../../core/rego/values/index.js'

describe('type text, as OPA prints it', () => {
  it('writes every shape', () => {
    expect(typeToString(t.array(t.any))).toBe('array[any]')
    expect(typeToString(t.tuple(t.number, t.string))).toBe('array<number, string>')
    expect(typeToString(t.object(t.string, t.any))).toBe('object[string: any]')
    expect(typeToString(t.record({ b: t.number, a: t.string }, { key: t.string, value: t.any }))).toBe(
      'object<a: string, b: number>[string: any]',
    )
    expect(typeToString(t.anyOf(t.string, t.set(t.string)))).toBe('any<string, set[string]>')
    expect(typeToString(t.fn([t.string], t.boolean))).toBe('(string) => boolean')
    expect(typeToString(t.named('x', t.number))).toBe('x: number')
  })
})

describe('capabilities JSON', () => {
  it('matches the decl shape of OPA capabilities (sorted keys, no names when minimal)', () => {
    const decl = t.fn(
      [
        t.named('obj', t.object(t.string, t.any)),
        t.named('paths', t.anyOf(t.array(t.string), t.set(t.string))),
      ],
      t.named('out', t.tuple(t.boolean, t.array(t.any))),
    )
    expect(JSON.stringify(typeToJSON(decl))).toBe(
      JSON.stringify({
        args: [
          { dynamic: { key: { type: 'string' }, value: { type: 'any' } }, type: 'object' },
          {
            of: [
              { dynamic: { type: 'string' }, type: 'array' },
              { of: { type: 'string' }, type: 'set' },
            ],
            type: 'any',
          },
        ],
        result: { static: [{ type: 'boolean' }, { dynamic: { type: 'any' }, type: 'array' }], type: 'array' },
        type: 'function',
      }),
    )
    expect(typeToJSON(t.named('x', t.string, 'the x'), { minimal: false })).toEqual({
      description: 'the x',
      name: 'x',
      type: 'string',
    })
  })

  it('round-trips through typeFromJSON', () => {
    const ty = t.fn([t.record({ indent: t.string }, { key: t.string, value: t.any })], t.string, t.any)
    expect(typeToString(typeFromJSON(typeToJSON(ty)))).toBe(typeToString(ty))
    expect(() => typeFromJSON({ type: 'bogus' })).toThrow(TypeError)
  })
})

describe('lattice', () => {
  it('types values precisely', () => {
    expect(typeToString(typeOf([1, 'a']))).toBe('array<number, string>')
    expect(typeToString(typeOf(Value.set([1, 'a', 2])))).toBe('set[any<number, string>]')
    expect(typeToString(typeOf(Value.record({ a: null })))).toBe('object<a: null>')
  })

  it('unions flatten and absorb into any', () => {
    expect(typeToString(unionOf(t.string, t.anyOf(t.number, t.string)))).toBe('any<string, number>')
    expect(typeToString(unionOf(t.string, t.any))).toBe('any')
  })

  it('checks subtyping and overlap', () => {
    expect(isSubtype(t.tuple(t.number, t.number), t.array(t.number))).toBe(true)
    expect(isSubtype(t.array(t.number), t.tuple(t.number))).toBe(false)
    expect(isSubtype(t.string, t.anyOf(t.number, t.string))).toBe(true)
    expect(isSubtype(t.anyOf(t.number, t.string), t.string)).toBe(false)
    expect(overlaps(t.anyOf(t.number, t.string), t.string)).toBe(true)
    expect(overlaps(t.number, t.set(t.any))).toBe(false)
    expect(overlaps(t.any, t.set(t.any))).toBe(true)
    expect(overlaps(t.tuple(t.number), t.tuple(t.number, t.number))).toBe(false)
    const options = t.record({ indent: t.string, pretty: t.boolean }, { key: t.string, value: t.any })
    expect(overlaps(t.record({ pretty: t.boolean }), options)).toBe(true)
    expect(overlaps(t.record({ pretty: t.string }), options)).toBe(false)
    expect(overlaps(t.record({ other: t.null }), t.record({ pretty: t.boolean }))).toBe(false)
  })

  it('selects into collections', () => {
    const obj = t.record({ a: t.string }, { key: t.string, value: t.number })
    expect(typeToString(selectType(obj, 'a') ?? t.null)).toBe('string')
    expect(typeToString(selectType(obj, 'z') ?? t.null)).toBe('number')
    expect(selectType(t.tuple(t.string), 1)).toBeUndefined()
    expect(typeToString(keysOf(t.array(t.string)) ?? t.null)).toBe('number')
    expect(typeToString(valuesOf(obj) ?? t.null)).toBe('any<string, number>')
  })
})
