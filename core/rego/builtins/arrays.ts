/** Array built-ins: concat, slice, reverse, flatten. */
import { t } from '../types/index.js'
import type { Value } from '../values/index.js'
import { isArray } from '../values/index.js'
import { defineBuiltin } from './define.js'
import { arrayOperand, intOperand } from './operands.js'

export const arrayConcat = defineBuiltin({
  name: 'array.concat',
  category: 'arrays',
  description: 'Concatenates two arrays.',
  args: [t.named('x', t.array(t.any), 'the first array'), t.named('y', t.array(t.any), 'the second array')],
  result: t.named('z', t.array(t.any), 'the concatenation of `x` and `y`'),
  impl: (_ctx, [x, y]) => [...arrayOperand(x, 1), ...arrayOperand(y, 2)],
})

export const arraySlice = defineBuiltin({
  name: 'array.slice',
  category: 'arrays',
  description:
    'Returns a slice of a given array. If `start` is greater or equal than `stop`, `slice` is `[]`. Indices are clamped to the array bounds.',
  args: [
    t.named('arr', t.array(t.any), 'the array to be sliced'),
    t.named('start', t.number, "the start index of the returned slice; if less than zero, it's clamped to 0"),
    t.named(
      'stop',
      t.number,
      "the stop index of the returned slice; if larger than `count(arr)`, it's clamped to `count(arr)`",
    ),
  ],
  result: t.named(
    'slice',
    t.array(t.any),
    'the subslice of `array`, from `start` to `end`, including `arr[start]`, but excluding `arr[end]`',
  ),
  impl: (_ctx, [arr, start, stop]) => {
    const a = arrayOperand(arr, 1)
    let from = intOperand(start, 2)
    let to = intOperand(stop, 3)
    if (from < 0) from = 0
    if (to > a.length) to = a.length
    return from >= to ? [] : a.slice(from, to)
  },
})

export const arrayReverse = defineBuiltin({
  name: 'array.reverse',
  category: 'arrays',
  description: 'Returns the reverse of a given array.',
  args: [t.named('arr', t.array(t.any), 'the array to be reversed')],
  result: t.named('rev', t.array(t.any), 'an array containing the elements of `arr` in reverse order'),
  impl: (_ctx, [arr]) => [...arrayOperand(arr, 1)].reverse(),
})

export const arrayFlatten = defineBuiltin({
  name: 'array.flatten',
  category: 'arrays',
  description: 'Flattens an array by one level: elements that are arrays are replaced by their elements.',
  args: [t.named('arr', t.array(t.any), 'the array to be flattened')],
  result: t.named('flattened', t.array(t.any), 'the array with nested arrays spliced in, one level deep'),
  impl: (_ctx, [arr]) => {
    const out: Value[] = []
    for (const x of arrayOperand(arr, 1)) {
      if (isArray(x)) out.push(...x)
      else out.push(x)
    }
    return out
  },
})

/** The array built-ins. */
export const ARRAYS = [arrayConcat, arraySlice, arrayReverse, arrayFlatten] as const
