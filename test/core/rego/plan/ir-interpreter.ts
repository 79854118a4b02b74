/**
 * A small interpreter of OPA's IR (plan.json), written from the IR documentation for the
 * differential tests of `regent build -t plan`: it runs a plan for an input and data and returns
 * the result set, so the planner's output can be compared with the engine's own evaluation.
 * Built-ins are the engine's implementations called directly; values are the engine's values.
 *
 * Semantics (docs "Block Execution"): a statement whose inputs are undefined, or whose check
 * fails, ends its block; `BlockStmt` runs its blocks and continues; `NotStmt` is defined when its
 * block is not; `ScanStmt` runs its block once per element; `ReturnLocalStmt` ends a function.
 */
import type { Builtin } from '../../../../core/rego/builtins/define.js'
import { BuiltinCallError } from '../../../../core/rego/builtins/errors.js'
import type { Block, Operand, Policy, Stmt } from '../../../../core/rego/plan/ir.js'
import {
  equalValues,
  isArray,
  isNumberValue,
  isObject,
  isSet,
  ObjectValue,
  SetValue,
  toSafeInt,
  Value,
} from '../../../../core/rego/values/index.js'
import { callBuiltin, runContext } from './builtin-bridge.js'

/** Raised for `AssignVarOnceStmt` / `ObjectInsertOnceStmt` conflicts (OPA's eval_conflict_error). */
export class IrConflictError extends Error {}

type Signal = 'done' | 'undefined' | 'return'
type Frame = Array<Value | undefined>

/** Runs plan `name` of `policy`; returns the result set. */
export function runPlan(
  policy: Policy,
  name: string,
  input: Value | undefined,
  data: Value,
  builtins: ReadonlyMap<string, Builtin>,
): Value[] {
  const plan = policy.plans.plans.find((p) => p.name === name)
  if (!plan) throw new Error(`no plan ${name}`)
  return new Interpreter(policy, builtins).run(plan.blocks, input, data)
}

class Interpreter {
  readonly #policy: Policy
  readonly #builtins: ReadonlyMap<string, Builtin>
  readonly #results: Value[] = []
  readonly #ctx = runContext()
  #steps = 0

  constructor(policy: Policy, builtins: ReadonlyMap<string, Builtin>) {
    this.#policy = policy
    this.#builtins = builtins
  }

  run(blocks: Block[], input: Value | undefined, data: Value): Value[] {
    const frame: Frame = [input, data]
    for (const block of blocks) this.#block(block, frame)
    return this.#results
  }

  #block(block: Block, frame: Frame): Signal {
    for (const stmt of block.stmts) {
      if (++this.#steps > 5_000_000) throw new Error('IR interpreter: step limit')
      const signal = this.#stmt(stmt, frame)
      if (signal !== 'done') return signal
    }
    return 'done'
  }

  #op(op: Operand, frame: Frame): Value | undefined {
    if (op.type === 'local') return frame[op.value]
    if (op.type === 'bool') return op.value
    return this.#string(op.value)
  }

  #string(i: number): string {
    const s = this.#policy.static.strings[i]
    if (!s) throw new Error(`string index ${i} out of range`)
    return s.value
  }

  #call(func: string, args: Array<Value | undefined>): Value | undefined {
    const fn = this.#policy.funcs.funcs.find((f) => f.name === func)
    if (fn) {
      if (args.length !== fn.params.length)
        throw new Error(`${func}: ${args.length} args for ${fn.params.length} params`)
      const frame: Frame = []
      fn.params.forEach((p, i) => {
        frame[p] = args[i]
      })
      for (const block of fn.blocks) if (this.#block(block, frame) === 'return') return frame[fn.return]
      return undefined
    }
    if (!this.#policy.static.builtin_funcs.some((b) => b.name === func))
      throw new Error(`undeclared builtin ${func}`)
    const builtin = this.#builtins.get(func)
    if (builtin?.kind !== 'function') throw new Error(`builtin ${func} not callable here`)
    if (args.some((a) => a === undefined)) return undefined
    try {
      return callBuiltin(builtin, this.#ctx, args as Value[])
    } catch (err) {
      if (!(err instanceof BuiltinCallError)) throw err
      return undefined // as OPA without strict-builtin-errors: the call is undefined
    }
  }

  #stmt(s: Stmt, f: Frame): Signal {
    const ok = (defined: boolean): Signal => (defined ? 'done' : 'undefined')
    switch (s.type) {
      case 'ArrayAppendStmt': {
        const arr = f[s.stmt.array]
        const v = this.#op(s.stmt.value, f)
        if (!isArray(arr) || v === undefined) return 'undefined'
        f[s.stmt.array] = [...arr, v]
        return 'done'
      }
      case 'AssignIntStmt':
        f[s.stmt.target] = Value.number(s.stmt.value)
        return 'done'
      case 'AssignVarOnceStmt': {
        const v = this.#op(s.stmt.source, f)
        if (v === undefined) return 'undefined'
        const prev = f[s.stmt.target]
        if (prev !== undefined && !equalValues(prev, v)) throw new IrConflictError('var assignment conflict')
        f[s.stmt.target] = v
        return 'done'
      }
      case 'AssignVarStmt': {
        const v = this.#op(s.stmt.source, f)
        if (v === undefined) return 'undefined'
        f[s.stmt.target] = v
        return 'done'
      }
      case 'BlockStmt':
        for (const b of s.stmt.blocks) if (this.#block(b, f) === 'return') return 'return'
        return 'done'
      case 'BreakStmt':
        throw new Error('BreakStmt is not emitted by regent')
      case 'CallStmt': {
        const result = this.#call(
          s.stmt.func,
          s.stmt.args.map((a) => this.#op(a, f)),
        )
        if (result === undefined) return 'undefined'
        f[s.stmt.result] = result
        return 'done'
      }
      case 'DotStmt': {
        const src = this.#op(s.stmt.source, f)
        const key = this.#op(s.stmt.key, f)
        if (src === undefined || key === undefined) return 'undefined'
        const v = dot(src, key)
        if (v === undefined) return 'undefined'
        f[s.stmt.target] = v
        return 'done'
      }
      case 'EqualStmt':
      case 'NotEqualStmt': {
        const a = this.#op(s.stmt.a, f)
        const b = this.#op(s.stmt.b, f)
        if (a === undefined || b === undefined) return 'undefined'
        return ok(equalValues(a, b) === (s.type === 'EqualStmt'))
      }
      case 'IsArrayStmt':
        return ok(isArray(this.#op(s.stmt.source, f)))
      case 'IsObjectStmt':
        return ok(isObject(this.#op(s.stmt.source, f)))
      case 'IsSetStmt':
        return ok(isSet(this.#op(s.stmt.source, f)))
      case 'IsDefinedStmt':
        return ok(f[s.stmt.source] !== undefined)
      case 'IsUndefinedStmt':
        return ok(f[s.stmt.source] === undefined)
      case 'LenStmt': {
        const v = this.#op(s.stmt.source, f)
        let n: number | undefined
        if (isArray(v)) n = v.length
        else if (isObject(v) || isSet(v)) n = v.size
        else if (typeof v === 'string') n = [...v].length
        if (n === undefined) return 'undefined'
        f[s.stmt.target] = Value.number(n)
        return 'done'
      }
      case 'MakeArrayStmt':
        f[s.stmt.target] = []
        return 'done'
      case 'MakeNullStmt':
        f[s.stmt.target] = null
        return 'done'
      case 'MakeNumberIntStmt':
        f[s.stmt.target] = Value.number(s.stmt.value)
        return 'done'
      case 'MakeNumberRefStmt':
        f[s.stmt.target] = Value.number(this.#string(s.stmt.Index))
        return 'done'
      case 'MakeObjectStmt':
        f[s.stmt.target] = new ObjectValue()
        return 'done'
      case 'MakeSetStmt':
        f[s.stmt.target] = new SetValue()
        return 'done'
      case 'NopStmt':
        return 'done'
      case 'NotStmt': {
        const inner = this.#block(s.stmt.block, [...f])
        return ok(inner === 'undefined')
      }
      case 'ObjectInsertOnceStmt':
      case 'ObjectInsertStmt': {
        const obj = f[s.stmt.object]
        const k = this.#op(s.stmt.key, f)
        const v = this.#op(s.stmt.value, f)
        if (!isObject(obj) || k === undefined || v === undefined) return 'undefined'
        const prev = obj.get(k)
        if (s.type === 'ObjectInsertOnceStmt' && prev !== undefined && !equalValues(prev, v))
          throw new IrConflictError('object insert conflict')
        obj.set(k, v)
        return 'done'
      }
      case 'ObjectMergeStmt': {
        const a = f[s.stmt.a]
        const b = f[s.stmt.b]
        if (!isObject(a) || !isObject(b)) throw new IrConflictError('merge of non-objects')
        f[s.stmt.target] = merge(a, b)
        return 'done'
      }
      case 'ResetLocalStmt':
        f[s.stmt.target] = undefined
        return 'done'
      case 'ResultSetAddStmt': {
        const v = f[s.stmt.value]
        if (v === undefined) return 'undefined'
        this.#results.push(v)
        return 'done'
      }
      case 'ReturnLocalStmt':
        return 'return'
      case 'ScanStmt': {
        const src = f[s.stmt.source]
        const entries = scanEntries(src)
        if (entries.length === 0) return 'undefined'
        for (const [k, v] of entries) {
          f[s.stmt.key] = k
          f[s.stmt.value] = v
          if (this.#block(s.stmt.block, f) === 'return') return 'return'
        }
        return 'done'
      }
      case 'WithStmt': {
        const value = this.#op(s.stmt.value, f)
        if (value === undefined) return 'undefined'
        const original = f[s.stmt.local]
        f[s.stmt.local] = upsert(
          original,
          s.stmt.path.map((i) => this.#string(i)),
          value,
        )
        try {
          if (this.#block(s.stmt.block, f) === 'return') return 'return'
        } finally {
          f[s.stmt.local] = original
        }
        return 'done'
      }
      case 'SetAddStmt': {
        const set = f[s.stmt.set]
        const v = this.#op(s.stmt.value, f)
        if (!isSet(set) || v === undefined) return 'undefined'
        set.add(v)
        return 'done'
      }
    }
  }
}

function dot(src: Value, key: Value): Value | undefined {
  if (isObject(src)) return src.get(key)
  if (isSet(src)) return src.has(key) ? key : undefined
  if (isArray(src) && isNumberValue(key)) {
    const i = toSafeInt(key)
    return i === undefined || i < 0 ? undefined : src[i]
  }
  return undefined
}

function scanEntries(src: Value | undefined): Array<[Value, Value]> {
  if (src === undefined) return []
  if (isArray(src)) return src.map((v, i) => [Value.number(i), v])
  if (isObject(src)) return src.entries().map(([k, v]) => [k, v])
  if (isSet(src)) return src.values().map((v) => [v, v])
  return []
}

/** `doc` with `value` at `path`, intermediate objects created (the document is copied, not changed). */
function upsert(doc: Value | undefined, path: readonly string[], value: Value): Value {
  const [key, ...rest] = path
  if (key === undefined) return value
  const out = isObject(doc) ? doc.copy() : new ObjectValue()
  out.set(key, upsert(out.get(key), rest, value))
  return out
}

function merge(a: ObjectValue, b: ObjectValue): ObjectValue {
  const out = a.copy()
  for (const [k, v] of b.entries()) {
    const prev = out.get(k)
    if (prev === undefined) out.set(k, v)
    else if (isObject(prev) && isObject(v)) out.set(k, merge(prev, v))
    else if (!equalValues(prev, v)) throw new IrConflictError('merge conflict')
  }
  return out
}
