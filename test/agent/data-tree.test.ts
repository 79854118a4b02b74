/** The base-document writes of `regent run -s`: OPA's in-memory store semantics, copy on write. */
import { describe, expect, it } from 'vitest'
import { applyWrite, makeDir, readPath, StorageError } from '../../agent/data-tree.js'
import { type ObjectValue, parseJSON, toJSONText, type Value } from '../../core/rego/values/index.js'

const doc = (text: string) => parseJSON(text) as ObjectValue
const text = (v: Value | undefined) => (v === undefined ? 'undefined' : toJSONText(v))

describe('readPath', () => {
  it('follows object keys and canonical array indices', () => {
    const d = doc('{"a": {"b": [10, 20]}}')
    expect(text(readPath(d, ['a', 'b', '1']))).toBe('20')
    expect(readPath(d, ['a', 'b', '01'])).toBeUndefined()
    expect(readPath(d, ['a', 'b', '2'])).toBeUndefined()
    expect(readPath(d, ['a', 'b', '0', 'x'])).toBeUndefined()
    expect(text(readPath(d, []))).toBe('{"a":{"b":[10,20]}}')
  })
})

describe('applyWrite', () => {
  it('adds, replaces and removes object keys without touching the old tree', () => {
    const before = doc('{"a": {"b": 1}}')
    const added = applyWrite(before, { op: 'add', path: ['a', 'c'], value: 2 })
    expect(text(added)).toBe('{"a":{"b":1,"c":2}}')
    expect(text(before)).toBe('{"a":{"b":1}}')
    expect(text(applyWrite(added, { op: 'replace', path: ['a', 'b'], value: 'x' }))).toBe(
      '{"a":{"b":"x","c":2}}',
    )
    expect(text(applyWrite(added, { op: 'remove', path: ['a', 'b'] }))).toBe('{"a":{"c":2}}')
  })

  it('inserts into arrays by index or "-", replaces and removes elements', () => {
    const d = doc('{"xs": [1, 2]}')
    expect(text(applyWrite(d, { op: 'add', path: ['xs', '-'], value: 3 }))).toBe('{"xs":[1,2,3]}')
    expect(text(applyWrite(d, { op: 'add', path: ['xs', '0'], value: 0 }))).toBe('{"xs":[0,1,2]}')
    expect(text(applyWrite(d, { op: 'add', path: ['xs', '2'], value: 9 }))).toBe('{"xs":[1,2,9]}')
    expect(text(applyWrite(d, { op: 'replace', path: ['xs', '1'], value: 7 }))).toBe('{"xs":[1,7]}')
    expect(text(applyWrite(d, { op: 'remove', path: ['xs', '0'] }))).toBe('{"xs":[2]}')
  })

  it('fails as OPA does: missing parents and targets are not found, the root must stay an object', () => {
    const d = doc('{"a": {"b": 1}, "xs": [1]}')
    const fail = (w: Parameters<typeof applyWrite>[1]) => {
      try {
        applyWrite(d, w)
      } catch (err) {
        return err as StorageError
      }
      throw new Error('expected a failure')
    }
    expect(fail({ op: 'add', path: ['x', 'y'], value: 1 }).message).toBe(
      'storage_not_found_error: /x: document does not exist',
    )
    expect(fail({ op: 'replace', path: ['a', 'z'], value: 1 }).kind).toBe('not_found')
    expect(fail({ op: 'remove', path: ['xs', '5'] }).message).toContain('array index out of range')
    expect(fail({ op: 'add', path: ['xs', 'k'], value: 1 }).message).toContain('array index must be')
    expect(fail({ op: 'add', path: ['a', 'b', 'c'], value: 1 }).kind).toBe('not_found')
    const root = fail({ op: 'add', path: [], value: 1 })
    expect(root).toBeInstanceOf(StorageError)
    expect(root.message).toBe('storage_invalid_patch_error: root must be object')
    expect(text(applyWrite(d, { op: 'replace', path: [], value: doc('{"z": 1}') }))).toBe('{"z":1}')
  })
})

describe('makeDir', () => {
  it('creates missing objects and refuses to go through a non-object', () => {
    expect(text(makeDir(doc('{"a": {}}'), ['a', 'b', 'c']))).toBe('{"a":{"b":{"c":{}}}}')
    const same = doc('{"a": {"b": {}}}')
    expect(makeDir(same, ['a', 'b'])).toBe(same)
    expect(() => makeDir(doc('{"a": [1]}'), ['a', 'b'])).toThrow('storage_write_conflict_error: /a')
  })
})
