import { describe, expect, it } from 'vitest'
import { RegoError, RegoErrors } from '../../../../core/rego/errors.js'
import type { Location } from '../../../../core/rego/syntax/ast.js'
import { copyTerm } from '../../../../core/rego/syntax/copy.js'
import { stringifyOpaJson } from '../../../../core/rego/syntax/json.js'
import { parseModule, parseModuleWithErrors } from '../../../../core/rego/syntax/module-parser.js'
import { parseTermText } from '../../../../core/rego/syntax/query.js'
import { locationText } from '../../../../core/rego/syntax/source.js'

const TEXT = 'package a\n\np := {"k": [1,\n  2]} if input.x\n'

describe('locations', () => {
  it('give row, column, offset and the located text', () => {
    const many = parseModule('package a\n\np := 1\n\tq := [\n\t\t2]\n', { file: 'b.rego' })
    // Rows and columns are computed from offsets; read out of order they stay right.
    const [p, q] = many.rules
    const array = q?.head.value as { value: Array<{ location?: Location }> } | undefined
    const two = array?.value[0]
    expect([two?.location?.row, two?.location?.col, q?.head.value?.location?.row]).toEqual([5, 3, 4])
    expect([p?.location?.row, p?.location?.col, q?.location?.row, q?.location?.col]).toEqual([3, 1, 4, 2])
    expect(many.package.location).toMatchObject({ file: 'b.rego', row: 1, col: 1, offset: 0 })
    const m = parseModule(TEXT, { file: 'a.rego' })
    const value = m.rules[0]?.head.value
    expect(value?.location).toMatchObject({ file: 'a.rego', row: 3, col: 6, offset: 16 })
    expect(locationText(value?.location)).toBe('{"k": [1,\n  2]}')
    // As OPA's parser (its cmd/parse_test.go): a package's or an import's text is its keyword.
    expect(locationText(m.package.location)).toBe('package')
    const imported = parseModule('package a\n\nimport data.foo as bar\n', { file: 'c.rego' })
    expect(locationText(imported.imports[0]?.location)).toBe('import')
  })

  it('never carry the whole file into JSON or structuredClone', () => {
    const m = parseModule(TEXT, { file: 'a.rego' })
    const loc = m.rules[0]?.location as Location
    expect(JSON.parse(JSON.stringify(loc))).toEqual({ file: 'a.rego', row: 3, col: 1, offset: 11, end: 42 })
    expect(JSON.stringify(m)).not.toContain('package a')
    // structuredClone keeps own fields only (use copy.ts for ASTs): neither the text nor rows.
    const cloned = structuredClone(loc)
    expect(JSON.stringify(cloned)).not.toContain('package a')
    expect(Object.keys(cloned)).toEqual(['source', 'offset', 'end'])
    expect(locationText(cloned)).toBeUndefined()
  })

  it('keep their text through spreads and AST copies', () => {
    const t = parseTermText('[1, 2]', { file: 'q.rego' })
    expect(locationText({ ...(t.location as Location) })).toBe('[1, 2]')
    expect(locationText(copyTerm(t).location)).toBe('[1, 2]')
  })

  it('made by hand (generated nodes) give their text', () => {
    const loc: Location = { file: 'g.rego', row: 1, col: 1, offset: 0, text: 'x' }
    expect(locationText(loc)).toBe('x')
    expect(locationText(undefined)).toBeUndefined()
    const json = stringifyOpaJson(
      { type: 'var', value: 'x', location: loc },
      { locations: true, locationText: true },
    )
    expect(JSON.parse(json)).toEqual({
      type: 'var',
      value: 'x',
      location: { file: 'g.rego', row: 1, col: 1, text: 'eA==' },
    })
  })

  it('put file:row in the text (as OPA ast.Error does), the column in the location, and a caret excerpt in parse errors', () => {
    let err: unknown
    try {
      parseModule('package a\n\np := ]\n', { file: 'bad.rego' })
    } catch (e) {
      err = e
    }
    expect(err).toBeInstanceOf(RegoErrors)
    const first = (err as RegoErrors).errors[0]
    expect(String(first)).toBe(
      'bad.rego:3: rego_parse_error: unexpected ] token: expected term\n\tp := ]\n\t     ^',
    )
    expect(first?.location).toEqual({ file: 'bad.rego', row: 3, col: 6 })
  })

  it('place EOF on the last character read and point the excerpt at the last non-space one, as OPA', () => {
    const errorsOf = (text: string) => parseModuleWithErrors(text, { file: '' }).errors
    const [value, expected] = errorsOf('package a\ndefault f :=')
    expect(value?.location).toEqual({ file: '', row: 2, col: 12 })
    expect(String(expected)).toBe(
      '2:12: rego_parse_error: unexpected eof token: expected default rule value term (e.g., default f := <VALUE>)\n\tdefault f :=\n\t           ^',
    )
    const [trailing] = errorsOf('package a\nf(x) = y { trim(x, ".", y) ')
    expect(trailing?.location?.col).toBe(27)
    expect(String(trailing).split('\n').slice(1)).toEqual([
      '\tf(x) = y { trim(x, ".", y) ',
      '\t                         ^',
    ])
  })

  it('print the excerpt line without its leading tabs, as OPA', () => {
    const [err] = parseModuleWithErrors('package test\np {\n\tx := 5\n\ty := contains("a"), "b")\n}', {
      file: 'test.rego',
    }).errors
    expect(String(err)).toBe(
      'test.rego:4: rego_parse_error: unexpected , token: expected \\n or ; or }\n\ty := contains("a"), "b")\n\t                  ^',
    )
  })

  it('put row:col in the text of an error without a file, as OPA does', () => {
    const err = new RegoError('rego_parse_error', 'unexpected eof token', { file: '', row: 2, col: 7 })
    expect(String(err)).toBe('2:7: rego_parse_error: unexpected eof token')
    expect(String(new RegoError('rego_compile_error', 'no location'))).toBe('rego_compile_error: no location')
  })

  it('in OPA JSON give the text in base64', () => {
    const m = parseModule(TEXT, { file: 'a.rego' })
    const json = JSON.parse(stringifyOpaJson(m.package, { locations: true, locationText: true }))
    expect(json.location).toEqual({
      file: 'a.rego',
      row: 1,
      col: 1,
      text: Buffer.from('package').toString('base64'),
    })
  })
})
