/**
 * The console's JSON text indenter (console/src/ui/json-text.ts): the same layout as
 * JSON.stringify(value, null, 2) for ordinary JSON, numbers beyond 2^53 kept exactly as written,
 * strings (with braces, commas, colons and escapes inside) untouched, and text that is not JSON
 * given back as it came.
 */
import { describe, expect, it } from 'vitest'
import { indentJsonText } from '../../console/src/ui/json-text.js'

describe('indentJsonText', () => {
  it('lays out ordinary JSON as JSON.stringify does', () => {
    const samples = [
      { a: 1, b: [true, null, 'x'], c: { d: {}, e: [] } },
      [1, [2, [3, { k: 'v' }]]],
      'plain',
      42,
      { 'odd "key"': 'a, b: {c} [d] \\ \u00e9 \n' },
    ]
    for (const value of samples) {
      expect(indentJsonText(JSON.stringify(value))).toBe(JSON.stringify(value, null, 2))
    }
  })

  it('keeps numbers beyond 2^53 exactly as written', () => {
    const text = '{"req_id":18446744073709551615,"ns":1.0e400,"neg":-9007199254740993}'
    const out = indentJsonText(text)
    expect(out).toContain('"req_id": 18446744073709551615')
    expect(out).toContain('"ns": 1.0e400')
    expect(out).toContain('"neg": -9007199254740993')
  })

  it('reindents text that is already indented', () => {
    const value = { a: [1, { b: 'c d' }] }
    expect(indentJsonText(JSON.stringify(value, null, 4))).toBe(JSON.stringify(value, null, 2))
  })

  it('gives back unbalanced text unchanged', () => {
    for (const text of ['{"a": [1, 2', '"unterminated', '{"a": 1}}']) {
      expect(indentJsonText(text)).toBe(text)
    }
  })
})
