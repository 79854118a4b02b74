/**
 * InjectTestCaseFunc (only when compiling for `regent test`, OPA's tester stage of the same name,
 * run after RewriteLocalVars): a parameterized test (`test_x[case] if { ... }`) gets a call
 * `internal.test_case([case])` placed as early in its body as the case's vars allow, so a case
 * whose assertions fail later is still seen, and reported as a failed case instead of vanishing
 * from the test's object. The compiler's own assignment of a head var (`__local0__ = tc.note`,
 * appended by RewriteRuleHeadRefs) is moved up first, right below the last expression that binds
 * what it reads; the user's own expressions are never moved.
 */
import type { Body, Expr, Term } from '../../syntax/ast.js'
import type { Compiler } from '../compiler.js'
import { callExpr, isAssignment, isEquality, operatorTerm, termsEqual, walkTerms } from '../terms.js'
import { TEST_PREFIX, testRuleName } from '../test-rules.js'

/** The built-in that reports one test case to the test runner. */
export const TEST_CASE_BUILTIN = 'internal.test_case'

/** The stage. */
export function injectTestCaseCalls(c: Compiler): void {
  for (const mod of c.sortedModules()) {
    for (const rule of mod.rules) {
      const test = testRuleName(rule.head)
      if (!test?.name.startsWith(TEST_PREFIX)) continue
      const cases = rule.head.ref.slice(test.ref.length)
      if (cases.length === 0 || callsTestCase(rule.body)) continue
      rule.body = withTestCaseCall(rule.body, cases)
    }
  }
}

function callsTestCase(body: Body): boolean {
  let found = false
  walkTerms(body, (t) => {
    if (t.type === 'ref' && refIs(t.value, TEST_CASE_BUILTIN)) found = true
    return found
  })
  return found
}

function refIs(ref: Term[], name: string): boolean {
  const parts = name.split('.')
  return (
    ref.length === parts.length &&
    ref.every((t, i) => (i === 0 ? t.type === 'var' : t.type === 'string') && t.value === parts[i])
  )
}

/** `body` with the compiler's head-var assignments moved up and the test-case call injected. */
function withTestCaseCall(input: Body, cases: Term[]): Body {
  const body = [...input]
  let injectBelow = -1
  for (const term of cases) {
    for (let i = body.length - 1; i >= 0; ) {
      const expr = body[i] as Expr
      let moved = false
      if ((isEquality(expr) || isAssignment(expr)) && termsEqual(operand(expr, 0), term)) {
        if (!expr.generated) {
          injectBelow = Math.max(injectBelow, i)
        } else {
          const reads = localVars(operand(expr, 1))
          if (reads.size === 0) {
            moved = move(body, i, 0)
            injectBelow = Math.max(injectBelow, 0)
          } else {
            const highest = lastFirstUse(body, i, reads)
            if (highest < i) {
              const to = highest + 1
              moved = move(body, i, to)
              if (to > injectBelow) injectBelow = to
              else if (i > injectBelow && to < injectBelow) injectBelow++
            }
          }
        }
      }
      // A moved expression leaves another one at `i`: look at it too.
      if (!moved) i--
    }
  }
  const at = cases[0]?.location
  const call = callExpr(operatorTerm(TEST_CASE_BUILTIN, at), [{ type: 'array', value: cases }], at)
  body.splice(injectBelow + 1, 0, call)
  return body.map((e, index) => ({ ...e, index }))
}

function operand(expr: Expr, i: number): Term {
  return (expr.terms as Term[])[i + 1] as Term
}

/**
 * The local vars `term` reads. NOTE(regent): OPA counts its renamed locals (`__local3__`); regent
 * keeps `some`-declared vars under their own names, so every var but the root documents counts.
 */
function localVars(term: Term): Set<string> {
  const out = new Set<string>()
  walkTerms(term, (t) => {
    if (t.type === 'var' && !ROOT_DOCUMENTS.has(t.value)) out.add(t.value)
    return false
  })
  return out
}

const ROOT_DOCUMENTS = new Set(['data', 'input'])

/**
 * For each of `vars`, the first expression above `before` that mentions it; the last of those
 * (0 when none is mentioned).
 */
function lastFirstUse(body: Body, before: number, vars: Set<string>): number {
  const first = new Map<string, number>()
  for (let j = before - 1; j >= 0; j--) {
    walkTerms(body[j] as Expr, (t) => {
      if (t.type === 'var' && vars.has(t.value)) first.set(t.value, j)
      return false
    })
  }
  return Math.max(0, ...first.values())
}

function move(body: Body, from: number, to: number): boolean {
  if (from === to) return false
  const [expr] = body.splice(from, 1)
  body.splice(to, 0, expr as Expr)
  return true
}
