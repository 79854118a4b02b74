/**
 * `walk(x)`: every `[path, value]` pair of a document, root first. It is a relation (many
 * results); the evaluator can iterate {@link walkValue} directly and pass a known path prefix to
 * skip subtrees, as OPA does when the path in `walk(x, [path, _])` is partly bound.
 */
import { t } from '../types/index.js'
import type { Value } from '../values/index.js'
import { equalValues, isArray, isObject, isSet } from '../values/index.js'
import { defineBuiltin } from './define.js'
import { chargeWork } from './meter.js'

/**
 * Yields `[path, value]` for `x` and everything inside it (arrays by index, objects by key, sets by
 * element), pre-order. With `prefix`, only nodes under that path are yielded (paths stay full).
 */
export function* walkValue(
  x: Value,
  prefix: readonly Value[] = [],
  path: Value[] = [],
): Generator<[Value[], Value]> {
  if (path.length >= prefix.length) yield [[...path], x]
  const want = path.length < prefix.length ? prefix[path.length] : undefined
  const visit = function* (key: Value, child: Value): Generator<[Value[], Value]> {
    if (want !== undefined && !equalValues(want, key)) return
    path.push(key)
    yield* walkValue(child, prefix, path)
    path.pop()
  }
  if (isArray(x)) for (let i = 0; i < x.length; i++) yield* visit(i, x[i] as Value)
  else if (isObject(x)) for (const [k, v] of x.entries()) yield* visit(k, v)
  else if (isSet(x)) for (const v of x.values()) yield* visit(v, v)
}

export const walk = defineBuiltin({
  name: 'walk',
  category: 'graph',
  description:
    'Generates `[path, value]` tuples for all nested documents of `x` (recursively). Queries can use `walk` to traverse documents nested under `x`.',
  args: [t.named('x', t.any, 'value to walk')],
  result: t.named(
    'output',
    t.tuple(t.array(t.any), t.any),
    'pairs of `path` and `value`: `path` is an array representing the pointer to `value` in `x`. If `path` is assigned a wildcard (`_`), the `walk` function will skip path creation entirely for faster evaluation.',
  ),
  relation: true,
  impl: function* (_ctx, [x]) {
    // Each result holds a fresh path array: charged as produced (eval/budget.ts).
    for (const [path, value] of walkValue(x)) {
      chargeWork(1 + path.length)
      yield [path, value]
    }
  },
})

/** The walk built-in. */
export const WALK = [walk] as const
