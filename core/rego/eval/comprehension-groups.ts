/**
 * Indexed comprehensions (the compiler's comprehension-index.ts): the first evaluation runs the body
 * once without the outer bindings and groups the results by the values of the index keys; this and
 * every later evaluation (within the same `with` scope) is a lookup by the keys' current values.
 * OPA's comprehension cache (topdown/eval.go, buildComprehensionCache) works the same way.
 */
import { ObjectValue, SetValue, type Value, ValueMap } from '../values/index.js'
import { Frame, plug } from './bindings.js'
import type { Evaluator } from './evaluator.js'
import { K, type PCompr, type PObjectCompr, type PVar } from './ir.js'

/** The lookup key of the index keys' values; undefined when one of them is not bound. */
function groupKey(keys: readonly PVar[], frame: Frame): Value | undefined {
  if (keys.length === 1) return plug(keys[0] as PVar, frame)
  const out: Value[] = new Array(keys.length)
  for (let i = 0; i < keys.length; i++) {
    const v = plug(keys[i] as PVar, frame)
    if (v === undefined) return undefined
    out[i] = v
  }
  return out
}

/**
 * The value of comprehension `t` for the bindings of its keys in `frame`, from its groups (built
 * on first use); undefined when the caller must evaluate it as usual: a key is unbound, or no
 * solution has these key values (OPA then evaluates the comprehension, which yields the empty
 * collection or the error a body raises).
 */
export function groupedComprehension(
  e: Evaluator,
  t: PCompr | PObjectCompr,
  keys: readonly PVar[],
  frame: Frame,
): Value | undefined {
  const key = groupKey(keys, frame)
  if (key === undefined) return undefined
  let groups = e.cache.getComprehension(t)
  if (groups === undefined) {
    groups = buildGroups(e, t, keys, frame)
    e.cache.putComprehension(t, groups)
  }
  return groups?.get(key)
}

/**
 * Runs the body in a fresh frame of the same layout (the compiler checked that it binds every var
 * it reads) and groups each solution's element by its key values. A duplicated key of an object
 * comprehension keeps the last value, as OPA's grouping does (no conflict error). Null when a
 * solution left a key unbound: the comprehension is then evaluated as usual.
 */
function buildGroups(
  e: Evaluator,
  t: PCompr | PObjectCompr,
  keys: readonly PVar[],
  outer: Frame,
): ValueMap<Value> | null {
  const frame = new Frame(outer.s.length, outer.names)
  const groups = new ValueMap<Value>()
  let grouped = true
  e.evalBody(t.body, 0, frame, () => {
    const key = groupKey(keys, frame)
    if (key === undefined) {
      grouped = false
      return true
    }
    const group = groups.get(key)
    if (t.k === K.ObjectCompr) {
      const obj = (group as ObjectValue | undefined) ?? new ObjectValue()
      obj.set(e.valueOf(t.key, frame), e.valueOf(t.value, frame))
      if (group === undefined) groups.set(key, obj)
    } else if (t.k === K.SetCompr) {
      const set = (group as SetValue | undefined) ?? new SetValue()
      set.add(e.valueOf(t.term, frame))
      if (group === undefined) groups.set(key, set)
    } else {
      const arr = (group as Value[] | undefined) ?? []
      arr.push(e.valueOf(t.term, frame))
      if (group === undefined) groups.set(key, arr)
    }
    return false
  })
  return grouped ? groups : null
}
