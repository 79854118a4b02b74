import { describe, expect, it } from 'vitest'
import { typeFromJsonSchema, typeToString } from '../../../../core/rego/types/index.js'

const typeOf = (schema: unknown) => typeToString(typeFromJsonSchema(schema))

describe('typeFromJsonSchema', () => {
  it('closes objects unless additionalProperties opens them', () => {
    const props = { a: { type: 'string' }, n: { type: 'integer' } }
    expect(typeOf({ type: 'object', properties: props })).toBe('object<a: string, n: number>')
    expect(typeOf({ properties: props, additionalProperties: true })).toBe(
      'object<a: string, n: number>[string: any]',
    )
    expect(typeOf({ type: 'object', additionalProperties: { type: 'boolean' } })).toBe(
      'object[string: boolean]',
    )
  })

  it('types arrays by items, positions by an items list', () => {
    expect(typeOf({ type: 'array', items: { type: 'number' } })).toBe('array[number]')
    expect(typeOf({ type: 'array', items: [{ type: 'string' }, { type: 'null' }] })).toBe(
      'array<string, null>',
    )
    expect(typeOf({ type: 'array' })).toBe('array[any]')
  })

  it('makes unions of type lists, enums, const and anyOf/oneOf', () => {
    expect(typeOf({ type: ['string', 'null'] })).toBe('any<string, null>')
    expect(typeOf({ enum: ['a', 1] })).toBe('any<string, number>')
    expect(typeOf({ const: true })).toBe('boolean')
    expect(typeOf({ oneOf: [{ type: 'string' }, { type: 'boolean' }] })).toBe('any<string, boolean>')
  })

  it('adds the schema’s own properties to each alternative and merges allOf', () => {
    const schema = {
      type: 'object',
      properties: { id: { type: 'string' } },
      anyOf: [
        { allOf: [{ properties: { a: { type: 'number' } } }, { required: ['a'] }] },
        { properties: { b: { type: 'number' } } },
      ],
    }
    expect(typeOf(schema)).toBe('any<object<a: number, id: string>, object<b: number, id: string>>')
  })

  it('follows local $refs and gives up on recursion and what it cannot read', () => {
    const schema = {
      definitions: { node: { type: 'object', properties: { next: { $ref: '#/definitions/node' } } } },
      $ref: '#/definitions/node',
    }
    expect(typeOf(schema)).toMatch(/^object<next: object<next: /)
    expect(typeOf({ $ref: 'https://example.com/remote.json' })).toBe('any')
    expect(typeOf({ format: 'email' })).toBe('any')
    expect(typeOf('not a schema')).toBe('any')
  })
})
