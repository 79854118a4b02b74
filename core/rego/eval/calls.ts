/**
 * Calls (OPA's evalCall): built-ins through the registry's wrapper, user functions through
 * virtual.ts, and replacements installed by `with`. A call with one operand more than the
 * function's arity unifies the result with that operand; otherwise the call succeeds unless the
 * result is `false`. Built-in errors are swallowed (the call is undefined) unless
 * `--strict-builtin-errors` is on. Asynchronous built-ins (`http.send`) cannot run inside the
 * synchronous evaluator: the first call throws {@link AsyncCallNeeded} with the promise, the
 * query runner awaits it and evaluates the query again with the outcome at hand; a failed
 * asynchronous call is then a built-in error like any other (async-outcome.ts).
 */
import type { Builtin } from '../builtins/define.js'
import { BuiltinCallError } from '../builtins/errors.js'
import { callBuiltin, callRelation, toBuiltinCallError } from '../builtins/registry.js'
import {
  compareValues,
  equalValues,
  formatValue,
  isArray,
  isSet,
  toJSONText,
  type Value,
} from '../values/index.js'
import { AsyncCallFailure, type AsyncOutcome } from './async-outcome.js'
import { type Frame, plug } from './bindings.js'
import { resultUnits } from './budget.js'
import { fromCached, toCached } from './cache.js'
import { evalError, internalError, isEvalError, QuerySuspended } from './errors.js'
import type { Evaluator, Iter } from './evaluator.js'
import type { FunctionRef, PCall, PExpr, PTerm } from './ir.js'
import { unifyValue } from './unify.js'
import { evalFunction } from './virtual.js'
import type { Mock } from './with.js'

/**
 * Thrown to suspend evaluation until an asynchronous built-in's outcome is known. The promise
 * resolves to the result or to the built-in's error; it rejects only when the query must stop
 * (out of budget, cancelled).
 */
export class AsyncCallNeeded extends QuerySuspended {
  constructor(
    readonly key: string,
    readonly promise: Promise<AsyncOutcome>,
  ) {
    super('asynchronous built-in call')
    this.name = 'AsyncCallNeeded'
  }
}

/**
 * Comparison operators, evaluated in place: same results as their registry implementations
 * (`compareValues`/`equalValues`, which cannot fail) without an arguments array per call.
 */
const COMPARISONS: Record<string, (a: Value, b: Value) => boolean> = {
  equal: (a, b) => equalValues(a, b),
  neq: (a, b) => !equalValues(a, b),
  lt: (a, b) => compareValues(a, b) < 0,
  lte: (a, b) => compareValues(a, b) <= 0,
  gt: (a, b) => compareValues(a, b) > 0,
  gte: (a, b) => compareValues(a, b) >= 0,
}

/** Evaluates a call expression. */
export function evalCall(e: Evaluator, expr: PExpr, frame: Frame, iter: Iter): boolean {
  const call = expr.call as PCall
  const compare = call.compare
  if (compare !== undefined && e.mocks.empty && e.saveSet === undefined) {
    const a = plug(call.args[0] as PTerm, frame)
    const b = plug(call.args[1] as PTerm, frame)
    if (a !== undefined && b !== undefined) {
      const v = compare(a, b)
      if (call.output) return unifyValue(e, call.output, frame, v, iter)
      return v ? iter() : false
    }
  }
  if (!e.mocks.empty) {
    const mock = e.mocks.get(call.name)
    if (mock) return evalMocked(e, expr, call, mock, frame, iter)
  }
  return evalTarget(e, expr, call, { name: call.name, fn: call.fn, builtin: call.builtin }, frame, iter)
}

function evalMocked(e: Evaluator, expr: PExpr, call: PCall, mock: Mock, frame: Frame, iter: Iter): boolean {
  if (mock.fn) {
    e.mocks.push()
    try {
      return evalTarget(e, expr, call, mock.fn, frame, () => {
        e.mocks.pop()
        try {
          return iter()
        } finally {
          e.mocks.push()
        }
      })
    } finally {
      e.mocks.pop()
    }
  }
  return result(e, call, mock.value as Value, frame, iter)
}

/** Unifies a call result with the output operand, or tests it for truth. */
function result(e: Evaluator, call: PCall, v: Value, frame: Frame, iter: Iter): boolean {
  if (call.output) return unifyValue(e, call.output, frame, v, iter)
  return v === false ? false : iter()
}

function argValues(e: Evaluator, call: PCall, frame: Frame, arity: number): Value[] {
  const out: Value[] = new Array(arity)
  for (let i = 0; i < arity; i++) out[i] = e.valueOf(call.args[i] as PTerm, frame)
  return out
}

function evalTarget(
  e: Evaluator,
  expr: PExpr,
  call: PCall,
  target: FunctionRef,
  frame: Frame,
  iter: Iter,
): boolean {
  if (e.pe !== undefined) {
    const partial = e.pe.evalCall(e, expr, call, target, frame, iter)
    if (partial !== undefined) return partial
  } else if (e.partial() && e.unknownExpr(expr, frame)) return e.saveCall(expr, frame, iter)
  if (target.fn) {
    const set = target.fn.ruleSet
    if (!set) throw internalError(`${target.name} is not a function`, expr.src.location)
    const v = evalFunction(e, set, argValues(e, call, frame, set.arity))
    return v === undefined ? false : result(e, call, v, frame, iter)
  }
  if (!target.builtin) return evalLanguageBuiltin(e, expr, call, target.name, frame, iter)
  return evalBuiltin(e, expr, call, target.builtin, frame, iter)
}

function evalBuiltin(e: Evaluator, expr: PExpr, call: PCall, b: Builtin, frame: Frame, iter: Iter): boolean {
  const args = argValues(e, call, frame, b.arity)
  const location = expr.src.location
  if (b.kind === 'relation') {
    let values: Value[]
    try {
      values = callRelation(b, e.ctx, args, location)
    } catch (err) {
      return builtinFailed(e, err, b, location)
    }
    for (const v of values) if (result(e, call, v, frame, iter)) return true
    return false
  }
  let v: Value | undefined
  const charged = e.instructions
  if (b.kind === 'async') {
    const key = `${b.name}${toJSONText(args)}`
    const known = e.asyncResults?.get(key)
    if (known === undefined) {
      throw new AsyncCallNeeded(
        key,
        // toBuiltinCallError rethrows evaluation errors (budget, cancellation): those stop the query.
        b.impl(e.ctx, args as never, location).then(
          (r) => toCached(r),
          (err: unknown) => new AsyncCallFailure(toBuiltinCallError(b, err, location)),
        ),
      )
    }
    if (known instanceof AsyncCallFailure) return builtinFailed(e, known.error, b, location)
    v = fromCached(known)
  } else {
    try {
      v = callBuiltin(b, e.ctx, args, location, e)
    } catch (err) {
      return builtinFailed(e, err, b, location)
    }
  }
  if (v === undefined) return false
  // The result's size is work done (budget.ts), less what the built-in charged up front.
  const units = resultUnits(v) - (e.instructions - charged)
  if (units > 0) e.charge(units)
  return result(e, call, v, frame, iter)
}

/** Records (or, in strict mode, raises) a built-in error; the call is undefined. */
export function builtinFailed(
  e: Evaluator,
  err: unknown,
  b: Builtin,
  location: PExpr['src']['location'],
): boolean {
  // The budget's errors (and cancellation) raised inside a built-in stop the query.
  if (isEvalError(err)) throw err
  const callErr = err instanceof BuiltinCallError ? err : toBuiltinCallError(b, err, location)
  if (e.strictBuiltinErrors)
    throw evalError(callErr.code, callErr.message, location ?? callErr.location, callErr)
  e.builtinErrors.push(callErr)
  return false
}

/** Built-ins the evaluator implements: `print`/`internal.print`, `trace` and `internal.test_case`. */
function evalLanguageBuiltin(
  e: Evaluator,
  expr: PExpr,
  call: PCall,
  name: string,
  frame: Frame,
  iter: Iter,
): boolean {
  const location = expr.src.location
  if (name === 'internal.print' || name === 'print') {
    const operands = argValues(e, call, frame, call.args.length)
    const sets =
      name === 'internal.print' && isArray(operands[0] as Value) ? (operands[0] as Value[]) : operands
    const lines: string[] = []
    const cross = (i: number, buf: string[]): void => {
      if (i === sets.length) {
        lines.push(buf.join(' '))
        return
      }
      const s = sets[i] as Value
      const xs = isSet(s) ? s.values() : [s]
      if (xs.length === 0) cross(i + 1, [...buf, '<undefined>'])
      for (const x of xs) cross(i + 1, [...buf, typeof x === 'string' ? x : formatValue(x)])
    }
    cross(0, [])
    for (const line of lines) e.ctx.print(line, location)
    return iter()
  }
  if (name === 'internal.test_case') {
    // One case of a parameterized test reached (regent test's sub-results); always true.
    const [cases] = argValues(e, call, frame, 1)
    e.ctx.testCase?.(cases as Value)
    return iter()
  }
  if (name === 'trace') {
    const [note] = argValues(e, call, frame, 1)
    const text = typeof note === 'string' ? note : formatValue(note as Value)
    e.tracer?.note(text, location)
    e.ctx.trace?.(text, location)
    return call.output ? unifyValue(e, call.output, frame, true, iter) : iter()
  }
  throw internalError(`unsupported built-in function: ${name}`, location)
}

/** The in-place comparison for a built-in name, if it is one of the comparison operators. */
export function comparisonOf(name: string): ((a: Value, b: Value) => boolean) | undefined {
  return Object.hasOwn(COMPARISONS, name) ? COMPARISONS[name] : undefined
}
