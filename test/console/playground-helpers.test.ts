/**
 * The playground's pure helpers: rule paths offered from modules (filter rules first, keywords
 * and packageless text ignored), the quoted error line with its marker under the column (tabs
 * kept so it lines up), and the JSON and unknowns fields.
 */
import { describe, expect, it } from 'vitest'
import { parseJsonField, parseUnknowns } from '../../console/src/views/playground/json-field.js'
import { rulePaths } from '../../console/src/views/playground/rule-paths.js'
import { pointAt } from '../../console/src/views/playground/source-line.js'

describe('rulePaths', () => {
  it('offers each rule of each package, filter rules first', () => {
    const modules = {
      'a.rego': 'package app.tickets\n\ndefault allow := false\nallow if input.x\ninclude if {\n\ttrue\n}\n',
      'b.rego':
        'package filters\nmasks[table] := m if { table := "t"; m := {} }\nfilter_rows contains x if x := 1\n',
      'c.rego': 'no package here\ninclude if true\n',
    }
    expect(rulePaths(modules)).toEqual([
      'app/tickets/include',
      'filters/filter_rows',
      'app/tickets/allow',
      'filters/masks',
    ])
  })
})

describe('pointAt', () => {
  it('quotes the row and puts the marker under the column, keeping tabs', () => {
    const source = 'package p\ninclude if {\n\tupper(input.x) == "A"\n}\n'
    expect(pointAt(source, 3, 2)).toEqual({ row: 3, text: '\tupper(input.x) == "A"', marker: '\t^' })
    expect(pointAt(source, 2, 9)?.marker).toBe('        ^')
  })

  it('gives nothing for rows outside the source and clamps a column past the end', () => {
    expect(pointAt('package p', 5, 1)).toBeUndefined()
    expect(pointAt('package p', 0, 1)).toBeUndefined()
    expect(pointAt(undefined, 1, 1)).toBeUndefined()
    expect(pointAt('ab', 1, 99)?.marker).toBe('  ^')
  })
})

describe('JSON and unknowns fields', () => {
  it('names what does not parse and lets an optional field be empty', () => {
    expect(parseJsonField('{"a": 1}', 'The input')).toEqual({ ok: true, value: { a: 1 } })
    const bad = parseJsonField('{a}', 'The input')
    expect(bad.ok).toBe(false)
    expect(!bad.ok && bad.message).toMatch(/^The input is not valid JSON: /)
    expect(parseJsonField('  ', 'The input').ok).toBe(false)
    expect(parseJsonField('', 'The options', {})).toEqual({ ok: true, value: {} })
  })

  it('splits unknowns on commas and whitespace', () => {
    expect(parseUnknowns(' input.tickets,input.users\n data.x ')).toEqual([
      'input.tickets',
      'input.users',
      'data.x',
    ])
    expect(parseUnknowns('')).toEqual([])
  })
})
