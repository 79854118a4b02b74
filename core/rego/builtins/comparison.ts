/**
 * Comparison built-ins, the operators `==`, `!=`, `<`, `<=`, `>`, `>=`, plus the declarations of
 * `=` (eq), `:=` (assign) and `in` (internal.member_2/3). The evaluator handles `=` and `:=` by
 * unification; their implementations here only answer the ground case.
 */
import { t } from '../types/index.js'
import type { Value } from '../values/index.js'
import { compareValues, equalValues, isArray, isObject, isSet, withoutFloatForm } from '../values/index.js'
import { defineBuiltin } from './define.js'

const anyArgs = [t.named('x', t.any), t.named('y', t.any)]
const result = t.named('result', t.boolean, 'true if the comparison holds')

function comparison(name: string, infix: string, description: string, test: (c: number) => boolean) {
  return defineBuiltin({
    name,
    category: 'comparison',
    description,
    args: anyArgs,
    result,
    infix,
    impl: (_ctx, [x, y]) => test(compareValues(x, y)),
  })
}

export const equal = defineBuiltin({
  name: 'equal',
  category: 'comparison',
  description: 'Checks if two values are equal.',
  args: anyArgs,
  result,
  infix: '==',
  impl: (_ctx, [x, y]) => equalValues(x, y),
})

export const neq = defineBuiltin({
  name: 'neq',
  category: 'comparison',
  description: 'Checks if two values are not equal.',
  args: anyArgs,
  result,
  infix: '!=',
  impl: (_ctx, [x, y]) => !equalValues(x, y),
})

export const lt = comparison(
  'lt',
  '<',
  'Checks if the first value is less than the second value.',
  (c) => c < 0,
)
export const lte = comparison(
  'lte',
  '<=',
  'Checks if the first value is less than or equal to the second value.',
  (c) => c <= 0,
)
export const gt = comparison(
  'gt',
  '>',
  'Checks if the first value is greater than the second value.',
  (c) => c > 0,
)
export const gte = comparison(
  'gte',
  '>=',
  'Checks if the first value is greater than or equal to the second value.',
  (c) => c >= 0,
)

export const eq = defineBuiltin({
  name: 'eq',
  category: 'comparison',
  description: 'Unifies two terms (the evaluator binds variables; on ground values this is equality).',
  args: anyArgs,
  result,
  infix: '=',
  impl: (_ctx, [x, y]) => equalValues(x, y),
})

export const assign = defineBuiltin({
  name: 'assign',
  category: 'comparison',
  description:
    'Assigns a value to a local variable (the evaluator binds it; on ground values this is equality).',
  args: anyArgs,
  result,
  infix: ':=',
  impl: (_ctx, [x, y]) => equalValues(x, y),
})

/** True when `x` is a value (not a key) of `collection`. */
export function memberOf(x: Value, collection: Value): boolean {
  if (isSet(collection)) return collection.has(x)
  if (isArray(collection)) return collection.some((v) => equalValues(v, x))
  if (isObject(collection)) {
    for (const [, v] of collection.unsortedEntries()) if (equalValues(v, x)) return true
  }
  return false
}

export const member2 = defineBuiltin({
  name: 'internal.member_2',
  category: 'comparison',
  description: 'Checks if `x` is a member of a collection (`x in xs`).',
  args: anyArgs,
  result,
  infix: 'in',
  impl: (_ctx, [x, xs]) => memberOf(x, xs),
})

export const member3 = defineBuiltin({
  name: 'internal.member_3',
  category: 'comparison',
  description: 'Checks if `k, v` is a key/value pair of a collection (`k, v in xs`).',
  args: [t.named('k', t.any), t.named('v', t.any), t.named('xs', t.any)],
  result,
  infix: 'in',
  impl: (_ctx, [k0, v, xs]) => {
    const k = withoutFloatForm(k0)
    if (isArray(xs)) {
      return (
        typeof k === 'number' &&
        Number.isInteger(k) &&
        k >= 0 &&
        k < xs.length &&
        equalValues(xs[k] as Value, v)
      )
    }
    if (isObject(xs)) {
      const found = xs.get(k)
      return found !== undefined && equalValues(found, v)
    }
    if (isSet(xs)) return equalValues(k, v) && xs.has(k)
    return false
  },
})

/** The comparison built-ins. */
export const COMPARISON = [equal, neq, lt, lte, gt, gte, eq, assign, member2, member3] as const
