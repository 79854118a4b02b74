/**
 * Virtual documents (OPA: evalVirtual and evalFunc): the value of a rule set — a complete rule, a
 * partial set, an object built from partial-object and ref-head rules — and the result of a user
 * function for given arguments. Values are cached per query; rule indices skip rules whose
 * constraints fail; early exit stops at the first answer when every rule would agree; conflicting
 * answers are `eval_conflict_error`s.
 */
import { isObject, ObjectValue, SetValue, type Value } from '../values/index.js'
import { Frame, same } from './bindings.js'
import { fromCached, toCached, UNDEFINED } from './cache.js'
import { completeConflictError, functionConflictError, objectKeyConflictError } from './errors.js'
import type { Evaluator } from './evaluator.js'
import type { PConstraint, PRule, PTerm, RuleSet } from './ir.js'
import { SetKind } from './ir.js'
import { getChild } from './refs.js'
import { unifyValue } from './unify.js'

/** The value of a rule set's document (undefined for functions and undefined rules). */
export function ruleSetValue(e: Evaluator, set: RuleSet): Value | undefined {
  switch (set.kind) {
    case SetKind.Function:
      return undefined
    case SetKind.Complete:
      return evalComplete(e, set)
    case SetKind.PartialSet:
      return evalPartialSet(e, set)
    case SetKind.Object:
      return evalObject(e, set)
  }
}

/** The indices of the rules whose index constraints hold. */
function candidates(e: Evaluator, set: RuleSet, args?: readonly Value[]): readonly number[] {
  const out = indexed(e, set, args)
  const first = set.rules[0]
  if (e.tracer?.index && first) e.tracer.index(first, out.length, set.earlyExit && e.earlyExit)
  return out
}

function indexed(e: Evaluator, set: RuleSet, args?: readonly Value[]): readonly number[] {
  if (!e.indexing || !set.indexed) return set.all
  const out: number[] = []
  for (let i = 0; i < set.rules.length; i++) {
    const cs = set.constraints[i]
    if (!e.indexing || !cs || cs.length === 0 || cs.every((c) => holds(e, c, args))) out.push(i)
  }
  return out
}

function holds(e: Evaluator, c: PConstraint, args: readonly Value[] | undefined): boolean {
  let cur: Value | undefined = c.root === 'input' ? e.input : c.root === 'data' ? e.data : args?.[c.arg]
  for (const p of c.path) {
    if (cur === undefined) return false
    cur = getChild(cur, p)
  }
  return cur !== undefined && same(cur, c.value)
}

function ruleLocation(r: PRule) {
  return r.src.rule.location
}

/** Runs a rule body and returns its value; several different values are a conflict. */
function ruleValue(e: Evaluator, r: PRule, prev: Value | undefined, findOne: boolean): Value | undefined {
  let result: Value | undefined
  const frame = new Frame(r.slots, r.names)
  e.evalRuleBody(
    r,
    frame,
    () => {
      const v = e.valueOf(r.value as PTerm, frame)
      if ((prev !== undefined && !same(prev, v)) || (result !== undefined && !same(result, v))) {
        throw completeConflictError(ruleLocation(r))
      }
      result = v
      return findOne
    },
    findOne,
  )
  return result
}

function evalComplete(e: Evaluator, set: RuleSet): Value | undefined {
  const cached = e.cache.getRule(set.id)
  if (cached !== undefined) return fromCached(cached)
  const findOne = set.earlyExit && e.earlyExit
  let prev: Value | undefined
  for (const i of candidates(e, set)) {
    let r: PRule | undefined = set.rules[i]
    let v: Value | undefined
    while (r && v === undefined) {
      v = ruleValue(e, r, prev, findOne)
      r = r.else
    }
    if (v !== undefined) {
      prev = v
      if (findOne) break
    }
  }
  if (prev === undefined && set.defaultRule) prev = ruleValue(e, set.defaultRule, undefined, true)
  e.cache.putRule(set.id, toCached(prev))
  return prev
}

function evalPartialSet(e: Evaluator, set: RuleSet): Value {
  const cached = e.cache.getRule(set.id)
  if (cached !== undefined && cached !== UNDEFINED) return cached
  const out = new SetValue()
  for (const i of candidates(e, set)) {
    const r = set.rules[i] as PRule
    const frame = new Frame(r.slots, r.names)
    e.evalRuleBody(r, frame, () => {
      out.add(e.valueOf(r.key as PTerm, frame))
      return false
    })
  }
  e.cache.putRule(set.id, out)
  return out
}

function evalObject(e: Evaluator, set: RuleSet): Value {
  const cached = e.cache.getRule(set.id)
  if (cached !== undefined && cached !== UNDEFINED) return cached
  const out = new ObjectValue()
  const visited: Value[][] = []
  for (const i of candidates(e, set)) {
    const r = set.rules[i] as PRule
    const frame = new Frame(r.slots, r.names)
    e.evalRuleBody(r, frame, () => {
      const keys = r.refTail.map((t) => e.valueOf(t, frame))
      insertRuleValue(e, r, frame, out, keys, visited)
      return false
    })
  }
  e.cache.putRule(set.id, out)
  return out
}

/**
 * The value under `key` of an object rule set, evaluating only the rules whose first ref element
 * can be `key` (with that element bound to it first). Uses the full object when it is cached.
 */
export function objectKeyValue(e: Evaluator, set: RuleSet, key: Value): Value | undefined {
  const full = e.cache.getRule(set.id)
  if (full !== undefined && full !== UNDEFINED) return isObject(full) ? full.get(key) : undefined
  const cacheId = -1 - set.id
  const cached = e.cache.getFunction(cacheId, [key])
  if (cached !== undefined) return fromCached(cached)
  const out = new ObjectValue()
  const visited: Value[][] = []
  for (const i of candidates(e, set)) {
    const r = set.rules[i] as PRule
    const first = r.refTail[0]
    if (!first) continue
    const frame = new Frame(r.slots, r.names)
    unifyValue(e, first, frame, key, () =>
      e.evalRuleBody(r, frame, () => {
        const keys = r.refTail.map((t) => e.valueOf(t, frame))
        insertRuleValue(e, r, frame, out, keys, visited)
        return false
      }),
    )
  }
  const v = out.get(key)
  e.cache.putFunction(cacheId, [key], toCached(v))
  return v
}

function insertRuleValue(
  e: Evaluator,
  r: PRule,
  frame: Frame,
  out: ObjectValue,
  keys: Value[],
  visited: Value[][],
): void {
  const loc = r.src.rule.head.location ?? ruleLocation(r)
  for (const v of visited) {
    if (v.length < keys.length && v.every((x, j) => same(x, keys[j] as Value)))
      throw objectKeyConflictError(loc)
  }
  visited.push(keys)
  let cur = out
  for (let j = 0; j < keys.length - 1; j++) {
    const k = keys[j] as Value
    const child = cur.get(k)
    if (child === undefined) {
      const obj = new ObjectValue()
      cur.set(k, obj)
      cur = obj
    } else if (isObject(child)) {
      cur = child
    } else {
      throw objectKeyConflictError(loc)
    }
  }
  const leaf = keys[keys.length - 1] as Value
  if (r.multiValue) {
    const existing = cur.get(leaf)
    let s: SetValue
    if (existing === undefined) {
      s = new SetValue()
      cur.set(leaf, s)
    } else if (existing instanceof SetValue) {
      s = existing
    } else {
      throw objectKeyConflictError(loc)
    }
    s.add(e.valueOf(r.key as PTerm, frame))
    return
  }
  const val = e.valueOf(r.value as PTerm, frame)
  const existing = cur.get(leaf)
  if (existing !== undefined && !same(existing, val)) throw objectKeyConflictError(loc)
  if (existing === undefined) cur.set(leaf, val)
}

/** Runs one function definition for `args`. */
function funcRuleValue(
  e: Evaluator,
  r: PRule,
  args: readonly Value[],
  prev: Value | undefined,
  findOne: boolean,
): Value | undefined {
  let result: Value | undefined
  const frame = new Frame(r.slots, r.names)
  const params = r.args ?? []
  const bind = (i: number): boolean => {
    if (i === params.length) {
      return e.evalRuleBody(
        r,
        frame,
        () => {
          const v = e.valueOf(r.value as PTerm, frame)
          if ((prev !== undefined && !same(prev, v)) || (result !== undefined && !same(result, v))) {
            throw functionConflictError(ruleLocation(r))
          }
          result = v
          return findOne
        },
        findOne,
      )
    }
    return unifyValue(e, params[i] as PTerm, frame, args[i] as Value, () => bind(i + 1))
  }
  bind(0)
  return result
}

/** The result of calling the function `set` with `args` (undefined when no definition applies). */
export function evalFunction(e: Evaluator, set: RuleSet, args: readonly Value[]): Value | undefined {
  const cached = e.cache.getFunction(set.id, args)
  if (cached !== undefined) return fromCached(cached)
  const findOne = set.earlyExit && e.earlyExit
  let prev: Value | undefined
  for (const i of candidates(e, set, args)) {
    let r: PRule | undefined = set.rules[i]
    let v: Value | undefined
    while (r && v === undefined) {
      v = funcRuleValue(e, r, args, prev, findOne)
      r = r.else
    }
    if (v !== undefined) {
      prev = v
      if (findOne) break
    }
  }
  if (prev === undefined && set.defaultRule) prev = funcRuleValue(e, set.defaultRule, args, undefined, true)
  e.cache.putFunction(set.id, args, toCached(prev))
  return prev
}
