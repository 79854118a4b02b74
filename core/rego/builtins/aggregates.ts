/** Aggregates: count, sum, product, max, min, sort, and the deprecated all/any. */
import { t } from '../types/index.js'
import type { Value } from '../values/index.js'
import {
  add,
  compareValues,
  isArray,
  isNumberValue,
  isObject,
  isSet,
  multiply,
  type RegoNumber,
} from '../values/index.js'
import { defineBuiltin } from './define.js'
import { collectionOperand, operandElementError, operandTypeError } from './operands.js'

const collection = t.anyOf(t.array(t.any), t.set(t.any))
const numbers = t.anyOf(t.array(t.number), t.set(t.number))

function numberItems(v: Value, position: number): RegoNumber[] {
  if (!isArray(v) && !isSet(v)) throw operandTypeError(position, v, 'set', 'array')
  const items = isArray(v) ? v : v.values()
  return items.map((x) => {
    if (!isNumberValue(x)) throw operandElementError(position, v, x, 'number')
    return x
  })
}

function countCodePoints(s: string): number {
  let n = 0
  for (let i = 0; i < s.length; i++) {
    const c = s.charCodeAt(i)
    if (c < 0xd800 || c > 0xdbff || i + 1 >= s.length) n++
    else {
      const d = s.charCodeAt(i + 1)
      n++
      if (d >= 0xdc00 && d <= 0xdfff) i++
    }
  }
  return n
}

export const count = defineBuiltin({
  name: 'count',
  category: 'aggregates',
  description: 'Count takes a collection or string and returns the number of elements (or characters) in it.',
  args: [
    t.named(
      'collection',
      t.anyOf(t.string, t.array(t.any), t.object(t.any, t.any), t.set(t.any)),
      'the set/array/object to be counted',
    ),
  ],
  result: t.named('n', t.number, 'the count of elements, key/val pairs, or characters, respectively.'),
  impl: (_ctx, [x]) => {
    if (typeof x === 'string') return countCodePoints(x)
    if (isArray(x)) return x.length
    if (isObject(x) || isSet(x)) return x.size
    throw operandTypeError(1, x, 'array', 'object', 'set', 'string')
  },
})

export const sum = defineBuiltin({
  name: 'sum',
  category: 'aggregates',
  description: 'Sums elements of an array or set of numbers.',
  args: [t.named('collection', numbers, 'the set or array of numbers to sum')],
  result: t.named('n', t.number, 'the sum of all elements'),
  impl: (_ctx, [x]) => numberItems(x, 1).reduce<RegoNumber>((acc, n) => add(acc, n), 0),
})

export const product = defineBuiltin({
  name: 'product',
  category: 'aggregates',
  description: 'Multiplies elements of an array or set of numbers',
  args: [t.named('collection', numbers, 'the set or array of numbers to multiply')],
  result: t.named('n', t.number, 'the product of all elements'),
  impl: (_ctx, [x]) => numberItems(x, 1).reduce<RegoNumber>((acc, n) => multiply(acc, n), 1),
})

function extreme(v: Value, sign: number): Value | undefined {
  if (!isArray(v) && !isSet(v)) throw operandTypeError(1, v, 'set', 'array')
  const items = isArray(v) ? v : v.values()
  if (items.length === 0) return undefined
  let best = items[0] as Value
  for (const x of items) if (compareValues(x, best) * sign > 0) best = x
  return best
}

export const max = defineBuiltin({
  name: 'max',
  category: 'aggregates',
  description: 'Returns the maximum value in a collection.',
  args: [t.named('collection', collection, 'the set or array to be searched')],
  result: t.named('n', t.any, 'the maximum of all elements'),
  impl: (_ctx, [x]) => extreme(x, 1),
})

export const min = defineBuiltin({
  name: 'min',
  category: 'aggregates',
  description: 'Returns the minimum value in a collection.',
  args: [t.named('collection', collection, 'the set or array to be searched')],
  result: t.named('n', t.any, 'the minimum of all elements'),
  impl: (_ctx, [x]) => extreme(x, -1),
})

export const sort = defineBuiltin({
  name: 'sort',
  category: 'aggregates',
  description: 'Returns a sorted array.',
  args: [t.named('collection', collection, 'the array or set to be sorted')],
  result: t.named('n', t.array(t.any), 'the sorted array'),
  impl: (_ctx, [x]) => {
    if (isSet(x)) return [...x.values()]
    if (!isArray(x)) throw operandTypeError(1, x, 'array', 'set')
    return [...x].sort(compareValues)
  },
})

export const all = defineBuiltin({
  name: 'all',
  category: 'aggregates',
  description: 'Returns true if all of the values in the collection are true (deprecated: use `every`).',
  args: [t.named('collection', collection, 'the array or set')],
  result: t.named('result', t.boolean, 'true if all values are true'),
  deprecated: true,
  impl: (_ctx, [x]) => collectionOperand(x, 1).every((v) => v === true),
})

export const any = defineBuiltin({
  name: 'any',
  category: 'aggregates',
  description: 'Returns true if any of the values in the collection is true (deprecated: use `some`).',
  args: [t.named('collection', collection, 'the array or set')],
  result: t.named('result', t.boolean, 'true if any value is true'),
  deprecated: true,
  impl: (_ctx, [x]) => collectionOperand(x, 1).some((v) => v === true),
})

/** The aggregate built-ins. */
export const AGGREGATES = [count, sum, product, max, min, sort, all, any] as const
