/**
 * Unification (`a = b`, `:=`, function arguments, call outputs) for the body planner: the side
 * without unbound variables is evaluated, and the other side, a pattern, is matched against it,
 * binding its variables (arrays and objects element by element after a type and length check).
 */

import type { Term } from '../syntax/ast.js'
import { bool, type Emitter, local } from './emitter.js'
import { PlanError } from './errors.js'
import type { Operand } from './ir.js'
import { bind, type Iter, type TermIter, type Vars } from './vars.js'

/** What unification needs of the body planner: a term's value as an operand. */
export interface TermPlanner {
  planTerm(t: Term, vars: Vars, iter: TermIter): void
  planTerms(terms: readonly Term[], vars: Vars, iter: (ops: Operand[], vars: Vars) => void): void
}

/** True when `t` holds a variable not bound yet outside of refs and comprehensions (a pattern). */
export function hasPattern(t: Term, vars: Vars): boolean {
  switch (t.type) {
    case 'var':
      return !vars.has(t.value) && t.value !== 'input' && t.value !== 'data'
    case 'array':
    case 'set':
      return t.value.some((x) => hasPattern(x, vars))
    case 'object':
      return t.value.some(([k, v]) => hasPattern(k, vars) || hasPattern(v, vars))
    default:
      return false
  }
}

/** Plans unifications into the emitter's current block. */
export class Unifier {
  readonly #e: Emitter
  readonly #terms: TermPlanner

  constructor(emitter: Emitter, terms: TermPlanner) {
    this.#e = emitter
    this.#terms = terms
  }

  /** `a = b`: evaluates the side without unbound variables and matches the other against it. */
  planUnify(a: Term, b: Term, vars: Vars, iter: Iter): void {
    const pa = hasPattern(a, vars)
    const pb = hasPattern(b, vars)
    if (!pa && !pb) {
      this.#terms.planTerms([a, b], vars, ([x, y], next) => {
        this.#e.emit('EqualStmt', { a: x as Operand, b: y as Operand })
        iter(next)
      })
      return
    }
    if (!pb) {
      this.#terms.planTerm(b, vars, (op, next) => this.planUnifyLocal(a, op, next, iter))
      return
    }
    if (!pa) {
      this.#terms.planTerm(a, vars, (op, next) => this.planUnifyLocal(b, op, next, iter))
      return
    }
    if (a.type === 'array' && b.type === 'array') {
      if (a.value.length !== b.value.length) {
        this.#never()
        return
      }
      this.#unifyPairs(
        a.value.map((x, i) => [x, b.value[i] as Term]),
        vars,
        iter,
      )
      return
    }
    throw new PlanError('unification of two terms that both have unbound variables', a.location ?? b.location)
  }

  #unifyPairs(pairs: Array<[Term, Term]>, vars: Vars, iter: Iter): void {
    const step = (i: number, current: Vars): void => {
      const pair = pairs[i]
      if (!pair) {
        iter(current)
        return
      }
      this.planUnify(pair[0], pair[1], current, (next) => step(i + 1, next))
    }
    step(0, vars)
  }

  /** A statement that is never defined (a unification that cannot succeed). */
  #never(): void {
    this.#e.emit('EqualStmt', { a: bool(true), b: bool(false) })
  }

  /** Matches `pattern` against the value in `op`, binding the pattern's unbound variables. */
  planUnifyLocal(pattern: Term, op: Operand, vars: Vars, iter: Iter): void {
    if (!hasPattern(pattern, vars)) {
      this.#terms.planTerm(pattern, vars, (p, next) => {
        this.#e.emit('EqualStmt', { a: p, b: op })
        iter(next)
      })
      return
    }
    if (pattern.type === 'var') {
      iter(bind(vars, pattern.value, this.#e.toLocal(op)))
      return
    }
    if (pattern.type === 'array') {
      this.#e.emit('IsArrayStmt', { source: op })
      this.#checkLength(op, pattern.value.length)
      const step = (i: number, current: Vars): void => {
        const elem = pattern.value[i]
        if (!elem) {
          iter(current)
          return
        }
        const target = this.#e.newLocal()
        this.#e.emit('DotStmt', { source: op, key: this.#int(i), target })
        this.planUnifyLocal(elem, local(target), current, (next) => step(i + 1, next))
      }
      step(0, vars)
      return
    }
    if (pattern.type === 'object') {
      if (pattern.value.some(([k]) => hasPattern(k, vars)))
        throw new PlanError('an object pattern with variable keys', pattern.location)
      this.#e.emit('IsObjectStmt', { source: op })
      this.#checkLength(op, pattern.value.length)
      const step = (i: number, current: Vars): void => {
        const entry = pattern.value[i]
        if (!entry) {
          iter(current)
          return
        }
        this.#terms.planTerm(entry[0], current, (key, next) => {
          const target = this.#e.newLocal()
          this.#e.emit('DotStmt', { source: op, key, target })
          this.planUnifyLocal(entry[1], local(target), next, (after) => step(i + 1, after))
        })
      }
      step(0, vars)
      return
    }
    throw new PlanError(`unification with a ${pattern.type} pattern`, pattern.location)
  }

  #checkLength(op: Operand, n: number): void {
    const length = this.#e.newLocal()
    this.#e.emit('LenStmt', { source: op, target: length })
    this.#e.emit('EqualStmt', { a: local(length), b: this.#int(n) })
  }

  #int(n: number): Operand {
    const target = this.#e.newLocal()
    this.#e.emit('MakeNumberIntStmt', { value: n, target })
    return local(target)
  }
}
