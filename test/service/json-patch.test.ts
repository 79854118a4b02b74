import { describe, expect, it } from 'vitest'
import { applyJsonPatch, JsonPatchError } from '../../service/json-patch.js'

describe('applyJsonPatch', () => {
  const doc = { a: { b: 1 }, list: [1, 2, 3] }

  it('applies RFC 6902 operations in order without touching the input', () => {
    const out = applyJsonPatch(doc, [
      { op: 'add', path: '/a/c', value: 2 },
      { op: 'replace', path: '/a/b', value: 10 },
      { op: 'remove', path: '/list/0' },
      { op: 'add', path: '/list/-', value: 4 },
      { op: 'copy', from: '/a/c', path: '/copied' },
      { op: 'move', from: '/copied', path: '/moved' },
      { op: 'test', path: '/moved', value: 2 },
      { op: 'add', path: '/x~1y', value: true },
    ])
    expect(out).toEqual({ a: { b: 10, c: 2 }, list: [2, 3, 4], moved: 2, 'x/y': true })
    expect(doc).toEqual({ a: { b: 1 }, list: [1, 2, 3] })
  })

  it('fails the whole patch on a bad operation', () => {
    expect(() => applyJsonPatch(doc, [{ op: 'test', path: '/a/b', value: 2 }])).toThrow(JsonPatchError)
    expect(() => applyJsonPatch(doc, [{ op: 'replace', path: '/nope', value: 2 }])).toThrow(
      /no value to replace/,
    )
    expect(() => applyJsonPatch(doc, [{ op: 'add', path: '/list/9', value: 2 }])).toThrow(
      /index out of range/,
    )
    expect(() => applyJsonPatch(doc, [{ op: 'remove', path: 'a' }])).toThrow(/starts with/)
  })

  it('stores __proto__ as a plain key', () => {
    const out = applyJsonPatch({}, [{ op: 'add', path: '/__proto__', value: { polluted: true } }]) as Record<
      string,
      unknown
    >
    expect(Object.getPrototypeOf(out)).toBe(Object.prototype)
    expect(JSON.stringify(out)).toBe('{"__proto__":{"polluted":true}}')
  })
})
