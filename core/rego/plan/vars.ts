/**
 * The planner's variable bindings and continuation types: planning is continuation-passing, so
 * each step hands the variables bound so far to the next (bindings are copied, never mutated,
 * because one binding map may be continued from several branches).
 */
import type { Local, Operand } from './ir.js'

/** Variables bound so far: Rego var name → local. */
export type Vars = ReadonlyMap<string, Local>
/** What comes after a planned step. */
export type Iter = (vars: Vars) => void
/** What comes after a planned term, given its operand. */
export type TermIter = (op: Operand, vars: Vars) => void

/** `vars` with `name` bound to `l`. */
export function bind(vars: Vars, name: string, l: Local): Vars {
  const out = new Map(vars)
  out.set(name, l)
  return out
}
