import { existsSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { LosslessNumber } from 'lossless-json'
import { describe, expect, it } from 'vitest'
import { CompileFailure } from '../../compile/errors.js'
import { lookupMappings, shortNames, translateField } from '../../compile/mappings.js'
import type { Target } from '../../compile/types.js'

const pg: Target = { kind: 'sql', dialect: 'postgresql', variant: 'postgresql' }
const prisma: Target = { kind: 'ucast', variant: 'prisma' }
const CASES = path.resolve(import.meta.dirname, '../../../shared/conformance/compile')
// The conformance cases are read from ../shared, never copied here; without them these units skip.
const HAVE_CASES = existsSync(CASES)
if (!HAVE_CASES) console.warn(`skipping the conformance unit cases: ${CASES} is absent`)

describe('translateField', () => {
  it('renames tables with $self and columns by name', () => {
    expect(translateField('fruits.name', { fruits: { $self: 'FRUIT', name: 'NAME' } })).toBe('FRUIT.NAME')
    expect(translateField('fruits.colour', { fruits: { $self: 'FRUIT', name: 'NAME' } })).toBe('FRUIT.colour')
    expect(translateField('fruits.name', undefined)).toBe('fruits.name')
  })

  it('resolves short names with $table, then maps them like table columns', () => {
    expect(translateField('name', { name: { $table: 'fruits' } })).toBe('fruits.name')
    expect(translateField('label', { label: { $table: 'fruits' }, fruits: { label: 'name' } })).toBe(
      'fruits.name',
    )
    expect(translateField('user', { user: { $table: 'users' }, users: { user: 'name', $self: 'U' } })).toBe(
      'U.name',
    )
    expect(translateField('name', {})).toBe('name')
  })

  it.skipIf(!HAVE_CASES)(
    'ignores entries and values that are not objects or strings (conformance units)',
    () => {
      for (const file of [
        'translatefield_unit_non_map_table_mapping_is_ignored.json',
        'translatefield_unit_non_string_column_is_ignored.json',
      ]) {
        const c = JSON.parse(readFileSync(path.join(CASES, file), 'utf8'))
        expect(translateField(c.request.field, c.request.translations)).toBe(c.expected.field)
      }
      expect(translateField('t.c', { t: { $self: 1, c: ['x'] }, c: { $table: 2 } })).toBe('t.c')
    },
  )
})

describe('lookupMappings', () => {
  it('prefers the dialect or variant, then the target kind, then the whole object', () => {
    const m = { postgresql: { a: { $self: 'P' } }, sql: { a: { $self: 'S' } }, ucast: { a: { $self: 'U' } } }
    expect(lookupMappings(m, pg)).toBe(m.postgresql)
    expect(lookupMappings(m, { kind: 'sql', dialect: 'mysql', variant: 'mysql' })).toBe(m.sql)
    expect(lookupMappings(m, prisma)).toBe(m.ucast)
    expect(lookupMappings({ prisma: { x: {} } }, prisma)).toEqual({ x: {} })
    const flat = { fruits: { $self: 'F' } }
    expect(lookupMappings(flat, pg)).toBe(flat)
    expect(lookupMappings({ ucast: null }, prisma)).toEqual({ ucast: null })
    expect(lookupMappings(undefined, pg)).toBeUndefined()
  })

  it('answers 500 when the chosen entry is not an object', () => {
    const fail = (m: unknown, t: Target) => {
      try {
        lookupMappings(m, t)
      } catch (err) {
        return err instanceof CompileFailure ? [err.status, err.message] : err
      }
      return undefined
    }
    expect(fail({ postgresql: 'x' }, pg)).toEqual([500, 'mappings: invalid mappings for dialect postgresql'])
    expect(fail({ sql: [1] }, pg)).toEqual([500, 'mappings: invalid mappings for target sql'])
    expect(fail({ postgresql: new LosslessNumber('1') }, pg)).toEqual([
      500,
      'mappings: invalid mappings for dialect postgresql',
    ])
  })
})

describe('shortNames', () => {
  it('collects $table keys one level down only', () => {
    expect([
      ...shortNames({ ucast: { name: { $table: 'fruits' } }, postgresql: { user: { $table: 'users' } } }),
    ]).toEqual(['name', 'user'])
    expect([...shortNames({ name: { $table: 'fruits' } })]).toEqual([])
  })
})
