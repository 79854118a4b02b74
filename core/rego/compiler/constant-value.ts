/**
 * The value of a constant term (no vars, refs, calls or comprehensions). The type checker reads
 * literal operands with it and the evaluator turns constants into values once, at prepare time.
 */
import type { Term } from '../syntax/ast.js'
import { ObjectValue as Obj, parseNumber, SetValue, type Value } from '../values/index.js'

/** The constant value of a term with no vars, refs or comprehensions; undefined otherwise. */
export function constantValue(t: Term): Value | undefined {
  switch (t.type) {
    case 'null':
      return null
    case 'boolean':
    case 'string':
      return t.value
    case 'number':
      return parseNumber(t.value)
    case 'array': {
      const out: Value[] = []
      for (const x of t.value) {
        const v = constantValue(x)
        if (v === undefined) return undefined
        out.push(v)
      }
      return out
    }
    case 'set': {
      const s = new SetValue()
      for (const x of t.value) {
        const v = constantValue(x)
        if (v === undefined) return undefined
        s.add(v)
      }
      return s
    }
    case 'object': {
      const o = new Obj()
      for (const [k, x] of t.value) {
        const kv = constantValue(k)
        const vv = constantValue(x)
        if (kv === undefined || vv === undefined) return undefined
        o.set(kv, vv)
      }
      return o
    }
    default:
      return undefined
  }
}
