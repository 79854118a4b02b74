/**
 * `performance`: constructs that make evaluation do work the policy does not need.
 */
import type { Body, Expr, Node, Rule, Term } from '../../rego/syntax/ast.js'
import { isCallExpr, operatorName } from '../../rego/syntax/ast.js'
import { walk } from '../../rego/syntax/walk.js'
import { allRules, isWildcard, ruleName, topLevelNames, varCounts, varsIn } from '../ast-helpers.js'
import type { Finding, LintRule } from '../types.js'

/**
 * walk-no-path: `walk(x, [path, value])` builds the path array of every node it visits. When the
 * path is written `_`, OPA skips building it; a named path that is never
 * used again pays for the arrays for nothing. Write `walk(x, [_, value])`.
 */
export const walkNoPath: LintRule = {
  name: 'walk-no-path',
  category: 'performance',
  description: 'Call to `walk` can be optimized',
  check({ file }) {
    const found: Finding[] = []
    for (const rule of file.module.rules) {
      let counts: Map<string, number> | undefined // only counted for rules that call walk
      walk(rule, (n) => {
        let args: Term[] | undefined
        if (n.type === 'call') args = n.value
        else if (n.type === 'expr' && isCallExpr(n)) args = n.terms
        if (!args || operatorName(args[0]) !== 'walk') return
        const out = args[2]
        const path = out?.type === 'array' ? out.value[0] : undefined
        if (path?.type !== 'var' || isWildcard(path)) return
        counts ??= varCounts([rule])
        if (counts.get(path.value) === 1) {
          found.push({ location: path.location ?? n.location })
        }
      })
    }
    return found
  },
}

type Comprehension = Extract<
  Term,
  { type: 'arraycomprehension' | 'setcomprehension' | 'objectcomprehension' }
>

function comprehensionsOf(rule: Rule): Comprehension[] {
  const out: Comprehension[] = []
  walk(rule, (n) => {
    if (
      n.type === 'arraycomprehension' ||
      n.type === 'setcomprehension' ||
      n.type === 'objectcomprehension'
    ) {
      out.push(n)
    }
  })
  return out
}

function comprehensionBody(c: Comprehension): Body {
  return c.value.body
}

function comprehensionHead(c: Comprehension): Node[] {
  return c.type === 'objectcomprehension' ? [c.value.key, c.value.value] : [c.value.term]
}

/**
 * non-loop-expression: an expression inside a comprehension that depends on none of its iteration
 * variables gives the same answer on every iteration; evaluated before the comprehension it runs
 * once. Iteration variables are those bound by `some … in`, by a ref operand (`xs[i]`) and, from
 * there on, by assignments that use them.
 */
export const nonLoopExpression: LintRule = {
  name: 'non-loop-expression',
  category: 'performance',
  description: 'Non-loop expression in loop',
  check({ file }) {
    const found: Finding[] = []
    const global = topLevelNames(file.module)
    for (const rule of allRules(file.module)) {
      const ruleCounts = varCounts([rule])
      for (const c of comprehensionsOf(rule)) {
        const body = comprehensionBody(c)
        const inside = varCounts([...comprehensionHead(c), body])
        // The comprehension's own vars: every occurrence of the name is inside it.
        const local = (name: string) => !global.has(name) && ruleCounts.get(name) === inside.get(name)
        const loop = iterationVars(body, local)
        if (loop.size === 0) continue
        for (const expr of body) {
          if (isConstantExpr(expr)) continue
          if (![...varsIn(expr)].some((v) => loop.has(v))) found.push({ location: expr.location })
        }
      }
    }
    return found
  },
}

// Vars bound by iteration in `body`, then those assigned from them (two passes reach a fixpoint
// for the usual `x := f(y)` chains without a loop of unbounded length).
function iterationVars(body: Body, local: (name: string) => boolean): Set<string> {
  const loop = new Set<string>()
  for (const expr of body) {
    walk(expr, (n) => {
      if (n.type === 'somedecl') {
        // `some x` and `some k, v in xs` declare their vars here, even when an outer var has the
        // same name (the declaration shadows it); the domain `xs` is not declared.
        for (const s of n.symbols) {
          const declared = s.type === 'call' ? s.value.slice(1, -1) : [s]
          for (const d of declared) for (const v of varsIn(d)) loop.add(v)
        }
      } else if (n.type === 'ref') {
        for (const part of n.value.slice(1))
          if (part.type === 'var' && local(part.value)) loop.add(part.value)
      }
    })
  }
  for (let pass = 0; pass < body.length + 1; pass++) {
    const before = loop.size
    for (const expr of body) {
      const name = isCallExpr(expr) ? operatorName(expr.terms[0]) : undefined
      if ((name !== 'assign' && name !== 'eq') || !isCallExpr(expr)) continue
      const [, lhs, rhs] = expr.terms
      if (!lhs || !rhs) continue
      if ([...varsIn(rhs)].some((v) => loop.has(v))) for (const v of varsIn(lhs)) if (local(v)) loop.add(v)
    }
    if (loop.size === before) break
  }
  return loop
}

function isConstantExpr(expr: Expr): boolean {
  const t = expr.terms
  return !Array.isArray(t) && t.type === 'boolean'
}

/**
 * with-outside-test-context: `with` replaces part of `input` or `data` for one expression, which
 * disables caches and indexing for it; outside tests it is almost always a slower way to call a
 * function with an argument.
 */
export const withOutsideTestContext: LintRule = {
  name: 'with-outside-test-context',
  category: 'performance',
  description: '`with` used outside test context',
  check({ file }) {
    const found: Finding[] = []
    for (const rule of file.module.rules) {
      const name = ruleName(rule) ?? ''
      if (name.startsWith('test_') || name.startsWith('todo_test_')) continue
      walk(rule, (n) => {
        if (n.type === 'with') found.push({ location: n.location })
      })
    }
    return found
  },
}

export const PERFORMANCE_RULES: readonly LintRule[] = [walkNoPath, nonLoopExpression, withOutsideTestContext]
