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
  for (const term of cases) moveHeadAssignmentsUp(body, term)
  const at = cases[0]?.location
  const call = callExpr(operatorTerm(TEST_CASE_BUILTIN, at), [{ type: 'array', value: cases }], at)
  body.splice(injectBelow(body, cases) + 1, 0, call)
  return body.map((e, index) => ({ ...e, index }))
}

/**
 * Pass 1: each compiler-made assignment of `term` goes up to just below the last of the first
 * expressions that mention what it reads (to the top when it reads no local var).
 */
function moveHeadAssignmentsUp(body: Body, term: Term): void {
  for (let i = body.length - 1; i >= 0; ) {
    const expr = body[i] as Expr
    let moved = false
    if (expr.generated && (isEquality(expr) || isAssignment(expr)) && termsEqual(operand(expr, 0), term)) {
      const reads = localVars(operand(expr, 1))
      if (reads.size === 0) moved = move(body, i, 0)
      else {
        const highest = lastFirstUse(body, i, reads)
        if (highest < i) moved = move(body, i, highest + 1)
      }
    }
    // A moved expression leaves another one at `i`: look at it too.
    if (!moved) i--
  }
}

/**
 * Pass 2: the index the call goes below, the last of the first expressions that mention each case
 * var (-1, the top, when none does). NOTE(regent): OPA looks for any mention, not only an
 * assignment: `some name, tc in cases` binds the case var `name` as the domain's key, and the
 * call must follow it so that a case whose assertions fail is still reported.
 */
function injectBelow(body: Body, cases: Term[]): number {
  let below = -1
  for (const term of cases) {
    if (term.type !== 'var') continue
    const first = body.findIndex((expr) => mentions(expr, term.value))
    if (first > below) below = first
  }
  return below
}

function mentions(expr: Expr, name: string): boolean {
  let found = false
  walkTerms(expr, (t) => {
    if (t.type === 'var' && t.value === name) found = true
    return found
  })
  return found
}

function operand(expr: Expr, i: number): Term {
  return (expr.terms as Term[])[i + 1] as Term
}

/**
 * The renamed local vars (`__localN__`) `term` reads: OPA's pass 1 looks only at those, so an
 * undeclared var a body unifies (`x = xs[_]`), which keeps its name, does not hold the head
 * assignment back.
 */
function localVars(term: Term): Set<string> {
  const out = new Set<string>()
  walkTerms(term, (t) => {
    if (t.type === 'var' && t.value.startsWith(LOCAL_VAR_PREFIX)) out.add(t.value)
    return false
  })
  return out
}

const LOCAL_VAR_PREFIX = '__local'

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
