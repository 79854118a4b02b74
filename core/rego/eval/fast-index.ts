/**
 * Indexed generators: `some perm in coll; perm.action == X; perm.resource == Y` (after the
 * compiler's rewriting: `p = coll[k]; p.action = X; p.resource = Y`) with `X` and `Y` invariant in
 * the loop enumerates only the elements whose tested fields can equal `X` and `Y`, found through an
 * index of the collection built once per collection value, instead of visiting every element.
 *
 * The index is a filter, not a replacement: the equalities still run after the generator for each
 * element it yields, so it only has to keep every element that could pass them, in the order the
 * generator visits them. Elements whose tested field is undefined can never pass and are left out;
 * the index key of a field value is the value's hash (its text for strings), consistent with
 * Rego's equality (`1 == 1.0`), so a collision only yields an element the equality then rejects.
 *
 * Used only in plain evaluation: under tracing it runs the generator's own step (the trace shows
 * every element), partial evaluation never runs fast steps, and any binding it does not expect
 * (an unbound or non-ground operand, a bound generator var) falls back to that step too.
 */
import { hashValue, isArray, isObject, isSet, type Value } from '../values/index.js'
import type { Frame } from './bindings.js'
import type { Evaluator, Iter } from './evaluator.js'
import { collectSlots, type FastStep } from './fast.js'
import { fieldOf, GENERIC, type Lookup, lookupOf } from './fast-lookup.js'
import { K, type PExpr, type PRef, type PTerm, type VNode, X } from './ir.js'

/** Collections smaller than this are scanned: a scan of a few elements is as cheap as a lookup. */
const MIN_INDEXED = 8

/** Visits of one collection value by one generator before its index is built (one-off values are scanned). */
const VISITS_BEFORE_INDEX = 2

/** One tested field: the path read from the element and the lookup of the value it must equal. */
interface Probe {
  path: Value[]
  value: Lookup
}

/** The elements (keys and values, in enumeration order) whose tested fields share an index key. */
interface Bucket {
  keys: Value[]
  values: Value[]
}

/** Nested maps, one level per probe, from index keys to the next level; buckets at the last level. */
type Level = Map<string | number, Level | Bucket>

/** The index key of a field value: equal values (as Rego compares) get equal keys. */
function indexKey(v: Value): string | number {
  return typeof v === 'string' ? v : hashValue(v)
}

function sizeOf(coll: Value): number {
  if (isArray(coll)) return coll.length
  if (isObject(coll) || isSet(coll)) return coll.size
  return 0
}

/** Builds the index of `coll` over the probes' field paths, in the order `each` enumerates. */
function buildIndex(coll: Value, probes: readonly Probe[]): Level {
  const root: Level = new Map()
  const add = (k: Value, v: Value): void => {
    let level = root
    for (let i = 0; i < probes.length; i++) {
      const field = fieldOf(v, (probes[i] as Probe).path)
      if (field === undefined) return // an undefined field never equals anything
      const key = indexKey(field)
      let next = level.get(key)
      if (next === undefined) {
        next = i === probes.length - 1 ? { keys: [], values: [] } : new Map()
        level.set(key, next)
      }
      if (i === probes.length - 1) {
        const bucket = next as Bucket
        bucket.keys.push(k)
        bucket.values.push(v)
      } else {
        level = next as Level
      }
    }
  }
  if (isArray(coll)) for (let i = 0; i < coll.length; i++) add(i, coll[i] as Value)
  else if (isObject(coll)) for (const [k, v] of coll.entries()) add(k, v)
  else if (isSet(coll)) for (const x of coll.values()) add(x, x)
  return root
}

/**
 * The tested field of `expr` if it is `target.path = X` (either side) with `X` a lookup that
 * mentions neither the element nor its key, so it has the same value for every element.
 */
function probeOf(expr: PExpr, target: number, bound: ReadonlySet<number>, root: VNode): Probe | undefined {
  if (expr.kind !== X.Unify || expr.negated || expr.with) return undefined
  const a = expr.a as PTerm
  const b = expr.b as PTerm
  return probeSides(a, b, target, bound, root) ?? probeSides(b, a, target, bound, root)
}

function probeSides(
  field: PTerm,
  other: PTerm,
  target: number,
  bound: ReadonlySet<number>,
  root: VNode,
): Probe | undefined {
  let path: Value[]
  if (field.k === K.Var && field.slot === target) path = []
  else if (field.k === K.Ref && field.head?.k === K.Var && field.head.slot === target && constantPath(field))
    path = field.path.map((p) => (p.k === K.Value ? p.v : null))
  else return undefined
  // Only vars the body mentions before the generator can be bound when it runs: `x.a = y` with
  // `y` first seen there binds `y` instead of testing (and an index over it would never be used).
  const mentions = slotsOf(other)
  if (mentions === undefined || !mentions.every((slot) => bound.has(slot))) return undefined
  const value = lookupOf(other, root)
  return value ? { path, value } : undefined
}

function constantPath(ref: PRef): boolean {
  return ref.path.every((p) => p.k === K.Value)
}

/** The slots a lookup term reads; undefined for terms lookups do not handle. */
function slotsOf(t: PTerm): number[] | undefined {
  if (t.k === K.Value) return []
  if (t.k === K.Var) return [t.slot]
  if (t.k !== K.Ref) return undefined
  const out: number[] = []
  if (t.head?.k === K.Var) out.push(t.head.slot)
  for (const p of t.path) if (p.k === K.Var) out.push(p.slot)
  return out
}

/**
 * The indexed step for the generator `body[i]` (`target = coll[key]`, already given the step
 * `base` by fast.ts), when the expressions right after it test fields of the element against
 * loop-invariant values; undefined otherwise.
 */
export function indexedGenerator(body: readonly PExpr[], i: number, root: VNode): FastStep | undefined {
  const gen = body[i] as PExpr
  const base = gen.fast as FastStep | undefined
  if (base === undefined || gen.kind !== X.Unify || gen.negated || gen.with) return undefined
  const a = gen.a as PTerm
  const b = gen.b as PTerm
  const [v, ref] = a.k === K.Var && b.k === K.Ref ? [a, b] : b.k === K.Var && a.k === K.Ref ? [b, a] : []
  if (v?.k !== K.Var || ref?.k !== K.Ref) return undefined
  const last = ref.path[ref.path.length - 1]
  if (last?.k !== K.Var || last.slot === v.slot) return undefined
  const target = v.slot
  const keySlot = last.slot
  const collection = lookupOf({ ...ref, path: ref.path.slice(0, -1) }, root)
  if (!collection) return undefined
  const bound = new Set<number>()
  for (let j = 0; j < i; j++) collectSlots(body[j] as PExpr, bound)
  // The element and its key are bound by the generator itself: never loop-invariant.
  bound.delete(target)
  bound.delete(keySlot)
  const probes: Probe[] = []
  for (let j = i + 1; j < body.length; j++) {
    const p = probeOf(body[j] as PExpr, target, bound, root)
    if (!p) break
    probes.push(p)
  }
  if (probes.length === 0) return undefined
  // NOTE(regent): keyed by the collection value: values are never changed once built (the agent's
  // data tree copies on write, `with` builds new documents), so an index stays valid as long as
  // its collection lives, across evaluations.
  const indexes = new WeakMap<object, Level | number>()
  const indexOf = (e: Evaluator, coll: Value): Level | undefined => {
    if (typeof coll !== 'object' || coll === null) return undefined
    const known = indexes.get(coll)
    if (known !== undefined && typeof known !== 'number') return known
    const size = sizeOf(coll)
    if (size < MIN_INDEXED) return undefined
    const visits = (known ?? 0) + 1
    if (visits < VISITS_BEFORE_INDEX) {
      indexes.set(coll, visits)
      return undefined
    }
    // Building reads every element once: charged as the scan it replaces (budget.ts).
    e.charge(size)
    const index = buildIndex(coll, probes)
    indexes.set(coll, index)
    return index
  }
  return (e: Evaluator, frame: Frame, iter: Iter) => {
    const s = frame.s
    if (e.tracer !== undefined || !e.generatorIndex || s[target] !== undefined || s[keySlot] !== undefined)
      return base(e, frame, iter)
    const coll = collection(e, s)
    if (coll === GENERIC || coll === undefined) return base(e, frame, iter)
    const index = indexOf(e, coll)
    if (index === undefined) return base(e, frame, iter)
    let node: Level | Bucket = index
    for (let j = 0; j < probes.length; j++) {
      const x = (probes[j] as Probe).value(e, s)
      if (x === GENERIC) return base(e, frame, iter)
      // An undefined operand fails the equality for every element.
      if (x === undefined) return false
      const next: Level | Bucket | undefined = (node as Level).get(indexKey(x))
      if (next === undefined) return false
      node = next
    }
    const { keys, values } = node as Bucket
    for (let j = 0; j < keys.length; j++) {
      // Each element visited is a unit of work, as in the scan (fast.ts `each`).
      if ((++e.instructions & 1023) === 0) e.checkLimits()
      s[keySlot] = keys[j]
      s[target] = values[j]
      const stop = iter()
      s[target] = undefined
      s[keySlot] = undefined
      if (stop) return true
    }
    return false
  }
}

/**
 * `body` with its indexable generators given an indexed step (each a copy of the expression, so
 * other bodies sharing it keep the plain step); the body itself when there is none.
 */
export function indexGenerators(body: PExpr[], root: VNode): PExpr[] {
  let out: PExpr[] | undefined
  for (let i = 0; i < body.length - 1; i++) {
    const step = indexedGenerator(body, i, root)
    if (!step) continue
    out ??= body.slice()
    out[i] = { ...(body[i] as PExpr), fast: step as PExpr['fast'] }
  }
  return out ?? body
}
