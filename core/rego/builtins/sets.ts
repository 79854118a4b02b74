/** Set built-ins: intersection, union, and the infix `&` (and), `|` (or) and the deprecated set_diff. */
import { t } from '../types/index.js'
import type { SetValue, Value } from '../values/index.js'
import { isSet, Value as V } from '../values/index.js'
import { defineBuiltin } from './define.js'
import { operandElementError, setOperand } from './operands.js'

function setOfSets(v: Value, position: number): SetValue[] {
  const outer = setOperand(v, position)
  return outer.values().map((x) => {
    if (!isSet(x)) throw operandElementError(position, outer, x, 'set')
    return x
  })
}

export const intersection = defineBuiltin({
  name: 'intersection',
  category: 'sets',
  description: 'Returns the intersection of the given input sets.',
  args: [t.named('xs', t.set(t.set(t.any)), 'set of sets to intersect')],
  result: t.named('y', t.set(t.any), 'the intersection of all `xs` sets'),
  impl: (_ctx, [xs]) => {
    const sets = setOfSets(xs, 1)
    if (sets.length === 0) return V.set()
    return sets.reduce((acc, s) => acc.intersect(s))
  },
})

export const union = defineBuiltin({
  name: 'union',
  category: 'sets',
  description: 'Returns the union of the given input sets.',
  args: [t.named('xs', t.set(t.set(t.any)), 'set of sets to merge')],
  result: t.named('y', t.set(t.any), 'the union of all `xs` sets'),
  impl: (_ctx, [xs]) => {
    const out = V.set()
    for (const s of setOfSets(xs, 1)) for (const x of s.unsortedValues()) out.add(x)
    return out
  },
})

export const and = defineBuiltin({
  name: 'and',
  category: 'sets',
  description: 'Returns the intersection of two sets.',
  args: [t.named('x', t.set(t.any), 'the first set'), t.named('y', t.set(t.any), 'the second set')],
  result: t.named('z', t.set(t.any), 'the intersection of `x` and `y`'),
  infix: '&',
  impl: (_ctx, [x, y]) => setOperand(x, 1).intersect(setOperand(y, 2)),
})

export const or = defineBuiltin({
  name: 'or',
  category: 'sets',
  description: 'Returns the union of two sets.',
  args: [t.named('x', t.set(t.any), 'the first set'), t.named('y', t.set(t.any), 'the second set')],
  result: t.named('z', t.set(t.any), 'the union of `x` and `y`'),
  infix: '|',
  impl: (_ctx, [x, y]) => setOperand(x, 1).union(setOperand(y, 2)),
})

export const setDiff = defineBuiltin({
  name: 'set_diff',
  category: 'sets',
  description: 'Returns the elements of the first set that are not in the second (deprecated: use `-`).',
  args: [t.named('x', t.set(t.any), 'the first set'), t.named('y', t.set(t.any), 'the second set')],
  result: t.named('z', t.set(t.any), 'the difference of `x` and `y`'),
  deprecated: true,
  impl: (_ctx, [x, y]) => setOperand(x, 1).diff(setOperand(y, 2)),
})

/** The set built-ins. */
export const SETS = [intersection, union, and, or, setDiff] as const
