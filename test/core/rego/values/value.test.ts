import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import {
  compareStrings,
  compareValues,
  equalValues,
  formatValue,
  hashValue,
  parseNumber,
  typeName,
  Value,
} from '../../../../core/rego/values/index.js'

/** Arbitrary Rego values, including big numbers, sets and non-string keys. */
const arbValue: fc.Arbitrary<Value> = fc.letrec<{ value: Value }>((tie) => ({
  value: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    fc.constant(null),
    fc.boolean(),
    fc.integer({ min: -5, max: 5 }),
    fc
      .constantFrom('1.5', '28857836529306024611913', '0.10000000000000000001', '-2.25')
      .map((s) => parseNumber(s) as Value),
    fc.constantFrom('', 'a', 'b', 'é', '\uffff', '😀'),
    fc.array(tie('value'), { maxLength: 3 }),
    fc.array(fc.tuple(tie('value'), tie('value')), { maxLength: 3 }).map((es) => Value.object(es)),
    fc.array(tie('value'), { maxLength: 3 }).map((xs) => Value.set(xs)),
  ),
})).value

describe('OPA order', () => {
  it('ranks kinds null < boolean < number < string < array < object < set', () => {
    const ordered: Value[] = [null, false, true, -1, 0.5, 'a', [], [1], Value.object([]), Value.set([])]
    for (let i = 0; i + 1 < ordered.length; i++) {
      expect(compareValues(ordered[i] as Value, ordered[i + 1] as Value)).toBeLessThan(0)
      expect(compareValues(ordered[i + 1] as Value, ordered[i] as Value)).toBeGreaterThan(0)
    }
  })

  it('compares strings by UTF-8 bytes, not UTF-16 units', () => {
    expect('\uffff' < '😀').toBe(false) // JS order differs
    expect(compareStrings('\uffff', '😀')).toBeLessThan(0)
    expect(compareStrings('ab', 'abc')).toBeLessThan(0)
  })

  it('compares objects by sorted keys, then values; sets by sorted elements', () => {
    expect(compareValues(Value.record({ a: 1 }), Value.record({ b: 0 }))).toBeLessThan(0)
    expect(compareValues(Value.record({ a: 1 }), Value.record({ a: 2 }))).toBeLessThan(0)
    expect(compareValues(Value.record({ a: 1 }), Value.record({ a: 1, b: 1 }))).toBeLessThan(0)
    expect(compareValues(Value.set([1, 3]), Value.set([2]))).toBeLessThan(0)
  })

  it('is a total order consistent with equality and hashing', () => {
    fc.assert(
      fc.property(arbValue, arbValue, arbValue, (a, b, c) => {
        const ab = Math.sign(compareValues(a, b))
        expect(Math.sign(compareValues(b, a))).toBe(-ab || 0)
        expect(ab === 0).toBe(equalValues(a, b))
        if (ab === 0) expect(hashValue(a)).toBe(hashValue(b))
        if (compareValues(a, b) <= 0 && compareValues(b, c) <= 0)
          expect(compareValues(a, c)).toBeLessThanOrEqual(0)
      }),
      { numRuns: 400 },
    )
  })
})

describe('objects and sets', () => {
  it('treat equal numbers and equal composites as the same key', () => {
    const obj = Value.object([
      [parseNumber('1.0') as Value, 'x'],
      [[1, Value.set(['a'])], 'y'],
    ])
    expect(obj.get(1)).toBe('x')
    expect(obj.get([1, Value.set(['a'])])).toBe('y')
    expect(obj.get('1')).toBeUndefined()
    const set = Value.set([1, parseNumber('1.0') as Value, [1, 2], [1, 2], Value.record({ a: 1 })])
    expect(set.size).toBe(3)
    expect(set.has(Value.record({ a: 1 }))).toBe(true)
  })

  it('iterate in canonical order and update caches on build', () => {
    const obj = Value.record({ b: 2, a: 1 })
    expect(obj.keys()).toEqual(['a', 'b'])
    obj.set('0', 0)
    expect(obj.keys()).toEqual(['0', 'a', 'b'])
    const s = Value.set([3, 'x', null, [0]])
    expect(s.values()).toEqual([null, 3, 'x', [0]])
    expect(s.union(Value.set([1])).values()).toEqual([null, 1, 3, 'x', [0]])
    expect(s.intersect(Value.set([3, 4])).values()).toEqual([3])
    expect(s.diff(Value.set([3])).size).toBe(3)
  })

  it('names types as OPA does and formats in Rego syntax', () => {
    expect([null, true, 1, 2n, 'a', [], Value.object(), Value.set()].map((v) => typeName(v))).toEqual([
      'null',
      'boolean',
      'number',
      'number',
      'string',
      'array',
      'object',
      'set',
    ])
    expect(formatValue(Value.set())).toBe('set()')
    expect(
      formatValue(
        Value.object([
          ['a', Value.set([2, 1])],
          [1, [null, 'q"']],
        ]),
      ),
    ).toBe('{1: [null, "q\\""], "a": {1, 2}}')
  })
})
