/**
 * References into `data` during partial evaluation (OPA's evalTree, evalVirtual, evalVirtualComplete,
 * evalVirtualPartial and evalTerm): the rule tree is walked like the evaluator walks it, but a rule
 * that depends on unknowns is inlined — each of its bodies is evaluated in place, what it saves
 * stays on the save stack, and its head value is unified with the other side — or, where inlining
 * would lose meaning (default rules, disabled inlining, a whole multi-value document), kept as a
 * support rule that the residual refers to (`data.partial.…`).
 */
import type { Term } from '../syntax/ast.js'
import { isArray, isObject, isSet, ObjectValue, SetValue, type Value } from '../values/index.js'
import { Frame, plug, same, TermBinding } from './bindings.js'
import type { Evaluator, Iter } from './evaluator.js'
import { K, type PRef, type PTerm, type RuleSet, SetKind, type VNode } from './ir.js'
import type { PartialEval } from './partial-eval.js'
import { overlapsAny, pathPrefix } from './partial-unknown.js'
import { evalRef, getChild, walkValue } from './refs.js'
import { unify, unifyValue, unifyWithRuleValue } from './unify.js'
import { objectKeyValue, ruleSetValue } from './virtual.js'

/** One `ref = other` being partially evaluated. */
interface RefUnify {
  pe: PartialEval
  e: Evaluator
  ref: PRef
  fr: Frame
  other: PTerm
  fo: Frame
}

/** Unifies the data ref `ref` (read in `fr`) with `other` (read in `fo`). */
export function unifyDataRef(
  pe: PartialEval,
  e: Evaluator,
  ref: PRef,
  fr: Frame,
  other: PTerm,
  fo: Frame,
  iter: Iter,
): boolean {
  const c: RefUnify = { pe, e, ref, fr, other, fo }
  const ground: Value[] = []
  for (const p of pathPrefix(ref.path, fr, true)) {
    if (p === undefined) break
    ground.push(p)
  }
  if (pe.set.overlaps('data', ground)) return save(c, iter)
  return tree(c, 0, e.policy.root, e.data, [], iter)
}

function save(c: RefUnify, iter: Iter): boolean {
  return c.e.saveUnify(c.ref, c.fr, c.other, c.fo, iter)
}

function groundKey(p: PTerm, frame: Frame): Value | undefined {
  if (p.k === K.Value) return p.v
  if (p.k === K.Var) {
    const b = frame.s[p.slot]
    if (b === undefined) return undefined
    return b instanceof TermBinding ? plug(b.term, b.frame) : b
  }
  return plug(p, frame)
}

// Base documents are read through the store, whose object keys are strings (refs.ts baseChild).
function baseChild(base: Value, key: Value): Value | undefined {
  const v = getChild(base, key)
  if (v !== undefined || typeof key !== 'number' || !isObject(base)) return v
  return base.get(String(key))
}

function targeted(e: Evaluator, path: readonly Value[]): boolean {
  return e.targets.some((t) => t.length <= path.length && t.every((x, i) => same(x, path[i] as Value)))
}

function tree(
  c: RefUnify,
  pos: number,
  node: VNode | undefined,
  base: Value | undefined,
  plugged: Value[],
  iter: Iter,
): boolean {
  const { pe, e, ref, fr } = c
  if (pos === ref.path.length) {
    if (node && pe.analysis.dataPath(plugged)) return save(c, iter)
    return evalRef(e, ref, fr, (v) => unifyValue(e, c.other, c.fo, v, iter))
  }
  const p = ref.path[pos] as PTerm
  const key = groundKey(p, fr)
  if (key !== undefined) return next(c, pos, node, base, plugged, key, iter)
  if (overlapsAny(pe.analysis.disabled, plugged)) return save(c, iter)
  const keys: Value[] = []
  if (base !== undefined) keys.push(...collectionKeys(base))
  for (const k of node?.sortedKeys ?? []) {
    const child = node?.child(k)
    if (child?.hidden && pos === 0) continue
    if (!keys.some((x) => same(x, k))) keys.push(k)
  }
  for (const k of keys) {
    if ((++e.instructions & 1023) === 0) e.checkLimits()
    if (unifyValue(e, p, fr, k, () => next(c, pos, node, base, plugged, k, iter))) return true
  }
  return false
}

function collectionKeys(v: Value): Value[] {
  if (isArray(v)) return v.map((_, i) => i)
  if (isObject(v)) return v.keys()
  if (isSet(v)) return [...v.values()]
  return []
}

function next(
  c: RefUnify,
  pos: number,
  node: VNode | undefined,
  base: Value | undefined,
  plugged: Value[],
  key: Value,
  iter: Iter,
): boolean {
  const { e, ref, fr } = c
  let child = node?.child(key)
  if (child && e.targets.length > 0 && targeted(e, child.path)) child = undefined
  const path = [...plugged, key]
  if (child?.ruleSet) return virtual(c, pos, child.ruleSet, path, iter)
  const nextBase = base === undefined ? undefined : baseChild(base, key)
  if (!child) {
    // A base document whose inlining is disabled is read when the residual runs (OPA treats it as
    // unknown): saved with the keys known so far plugged, whether or not it is there now.
    if (overlapsAny(c.pe.analysis.disabled, path)) return save(c, iter)
    if (nextBase === undefined) return false
    return walkValue(e, nextBase, ref.path, pos + 1, fr, (v) => unifyValue(e, c.other, c.fo, v, iter), true)
  }
  return tree(c, pos + 1, child, nextBase, path, iter)
}

function virtual(c: RefUnify, pos: number, set: RuleSet, plugged: Value[], iter: Iter): boolean {
  const { pe, e, ref, fr } = c
  const dependsOnUnknowns = pe.analysis.ruleSet(set)
  const disabled = overlapsAny(pe.analysis.disabled, plugged) || (pe.shallow && dependsOnUnknowns)
  const unknown = disabled || dependsOnUnknowns
  // Partial evaluation of ordered rules (`else`) is not supported, as in OPA: the ref is kept.
  if (unknown && set.rules.some((r) => r.else !== undefined)) return save(c, iter)
  if (set.kind === SetKind.Function) return false
  if (!unknown) {
    // A lookup of one key evaluates only the rules that can produce it, as evaluation does: a
    // conflict under another key is no error here.
    const next = ref.path[pos + 1]
    const key = set.kind === SetKind.Object && next !== undefined ? groundKey(next, fr) : undefined
    if (key !== undefined) {
      const v = objectKeyValue(e, set, key)
      if (v === undefined) return false
      return walkValue(e, v, ref.path, pos + 2, fr, (x) => unifyWithRuleValue(e, x, c.other, c.fo, iter))
    }
    const v = ruleSetValue(e, set)
    if (v === undefined) return false
    return walkValue(e, v, ref.path, pos + 1, fr, (x) => unifyWithRuleValue(e, x, c.other, c.fo, iter))
  }
  if (set.kind === SetKind.Complete) return complete(c, pos, set, plugged, disabled, iter)
  return multi(c, pos, set, plugged, disabled, iter)
}

function defaultValue(set: RuleSet): Value | undefined {
  const d = set.defaultRule
  return d?.value ? plug(d.value, new Frame(d.slots)) : undefined
}

function complete(c: RefUnify, pos: number, set: RuleSet, plugged: Value[], disabled: boolean, iter: Iter) {
  const { pe, e } = c
  let support = disabled
  if (set.defaultRule) {
    // The default value matters unless the other side is a constant other than it.
    const other = plug(c.other, c.fo)
    const dv = defaultValue(set)
    if (other === undefined || (dv !== undefined && same(dv, other))) support = true
  }
  if (support) return supportRules(c, pos, set, plugged, iter)
  for (const r of set.rules) {
    const f = pe.frame(r)
    if (e.evalBody(r.body, 0, f, () => evalTerm(c, r.value as PTerm, f, pos + 1, iter))) return true
  }
  return false
}

/** Partial sets and objects (multi-value and ref-head rules). */
function multi(c: RefUnify, pos: number, set: RuleSet, plugged: Value[], disabled: boolean, iter: Iter) {
  const { pe, e, ref, fr } = c
  if (disabled || pos + 1 === ref.path.length) return supportRules(c, pos, set, plugged, iter)
  const rest = ref.path.slice(pos + 1)
  for (const r of set.rules) {
    const tail = r.refTail
    if (rest.length < tail.length) {
      if (supportRules(c, pos, set, plugged, iter)) return true
      return false
    }
    const f = pe.frame(r)
    const head = (i: number, then: Iter): boolean =>
      i === tail.length
        ? then()
        : unify(e, rest[i] as PTerm, fr, tail[i] as PTerm, f, () => head(i + 1, then))
    const stop = head(0, () => {
      if (r.multiValue) {
        const key = r.key as PTerm
        if (rest.length === tail.length) {
          const elems: PTerm = { k: K.Set, items: [key], src: key.src }
          return e.evalBody(r.body, 0, f, () => evalTerm(c, elems, f, ref.path.length, iter))
        }
        return unify(e, rest[tail.length] as PTerm, fr, key, f, () =>
          e.evalBody(r.body, 0, f, () => evalTerm(c, key, f, pos + 2 + tail.length, iter)),
        )
      }
      return e.evalBody(r.body, 0, f, () => evalTerm(c, r.value as PTerm, f, pos + 1 + tail.length, iter))
    })
    if (stop) return true
  }
  return false
}

/**
 * The rest of the ref (from `pos`) applied to the rule's head term `t` (read in `ft`), unified with
 * the other side. A head that is still unknown is saved as `t.rest = other`.
 */
function evalTerm(c: RefUnify, t: PTerm, ft: Frame, pos: number, iter: Iter): boolean {
  const { e, ref, fr, pe } = c
  if (pos === ref.path.length) return unify(e, t, ft, c.other, c.fo, iter)
  const v = plug(t, ft)
  if (v !== undefined) return walkValue(e, v, ref.path, pos, fr, (x) => unifyValue(e, c.other, c.fo, x, iter))
  let term = t
  let frame = ft
  while (term.k === K.Var) {
    const b = frame.s[term.slot]
    if (!(b instanceof TermBinding)) break
    term = b.term
    frame = b.frame
  }
  if (term.k === K.Var || term.k === K.Ref) {
    if (!pe.analysis.term(term, frame)) return false
    return pe.saveRefRest(e, term, frame, ref.path.slice(pos), fr, c.other, c.fo, iter)
  }
  const p = ref.path[pos] as PTerm
  const key = groundKey(p, fr)
  const children = termChildren(term)
  for (const [k, child] of children) {
    if ((++e.instructions & 1023) === 0) e.checkLimits()
    const kv = plug(k, frame)
    if (kv === undefined) continue
    if (key !== undefined) {
      if (same(kv, key)) return evalTerm(c, child, frame, pos + 1, iter)
      continue
    }
    if (unifyValue(e, p, fr, kv, () => evalTerm(c, child, frame, pos + 1, iter))) return true
  }
  return false
}

function termChildren(t: PTerm): Array<[PTerm, PTerm]> {
  switch (t.k) {
    case K.Array:
      return t.items.map((x, i) => [{ k: K.Value, v: i, src: x.src }, x])
    case K.Set:
      return t.items.map((x) => [x, x])
    case K.Object:
      return t.entries
    default:
      return []
  }
}

/**
 * Keeps the rules of `set` as support rules (partially evaluated, in `data.partial…`) and saves
 * `data.partial.<path>… = other`.
 */
function supportRules(c: RefUnify, pos: number, set: RuleSet, plugged: Value[], iter: Iter): boolean {
  const { pe, e, ref, fr } = c
  const first = set.rules[0] ?? set.defaultRule
  if (!first) return false
  const pkgLength = first.src.module.package.path.length - 1
  const path = pe.supportPath(plugged, pkgLength)
  let defined = pe.support.has(path)
  if (!defined) {
    pe.support.mark(path)
    for (const r of [...set.rules, ...(set.defaultRule ? [set.defaultRule] : [])]) {
      if (pe.supportRule(e, r, path, set.kind)) defined = true
    }
    defined = defined || pe.supportDefined(path)
  } else {
    defined = pe.supportDefined(path)
  }
  if (!defined) {
    if (pos + 1 !== ref.path.length || set.kind === SetKind.Complete) return false
    const empty: PTerm =
      set.kind === SetKind.PartialSet
        ? { k: K.Value, v: new SetValue(), src: { type: 'set', value: [] } }
        : { k: K.Value, v: new ObjectValue(), src: { type: 'object', value: [] } }
    return unify(e, empty, fr, c.other, c.fo, iter)
  }
  const left = (): Term => ({
    type: 'ref',
    value: [
      ...pe.supportRoot(),
      ...plugged.map((p) => pe.plugger.value(p)),
      ...ref.path.slice(pos + 1).map((p) => pe.plugger.term(p, fr)),
    ],
  })
  return pe.saveAst(left, c.other, c.fo, iter)
}
