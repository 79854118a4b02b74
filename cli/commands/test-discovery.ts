/**
 * Which tests `regent test` runs and what they are called, as OPA's tester finds them: every rule
 * of the compiled modules (file order, then rule order) whose ground head ref has a part starting
 * with `test_` or `todo_test_` (core/rego/compiler/test-rules.ts), each definition on its own
 * (the compiler numbered duplicates `name#01`, ...), filtered by `--run` on the full name.
 */
import type { RE2JS } from 're2js'
import { isConstant } from '../../core/rego/compiler/terms.js'
import { testPath, testRuleName } from '../../core/rego/compiler/test-rules.js'
import { refString } from '../../core/rego/compiler/text.js'
import type { Policy } from '../../core/rego/eval/policy.js'
import type { Head, Location } from '../../core/rego/syntax/ast.js'

/** One test: one rule definition. */
export interface TestCase {
  /** `data.pkg` */
  pkg: string
  /** The rule's ref up to the test name: `test_x`, `test_x#01`, `a.test_y`. */
  name: string
  /** The query that evaluates it, also the name `--run` matches: `data.pkg.test_x`. */
  query: string
  location: Location | undefined
  /** `todo_test_*`: reported as skipped, never run. */
  skip: boolean
  /**
   * `test_x[case] if ...`, `test_x[a][b] if ...`: the value is an object of cases, each reported
   * (OPA's sub-results).
   */
  partialObject: boolean
}

/** The tests of `policy` whose full name `run` matches (all without `run`). */
export function discoverTests(policy: Policy, run?: RE2JS): TestCase[] {
  const out: TestCase[] = []
  for (const mod of policy.compiler.sortedModules()) {
    const pkg = refString(mod.package.path)
    for (const rule of mod.rules) {
      const test = testRuleName(rule.head)
      if (!test) continue
      const query = refString(testPath(mod.package.path, test.ref))
      if (run && !run.matcher(query).find()) continue
      out.push({
        pkg,
        name: refString(test.ref),
        query,
        location: rule.location,
        skip: test.skip,
        partialObject: isPartialObject(rule.head),
      })
    }
  }
  return out
}

/**
 * OPA's `Head.DocKind() == PartialObjectDoc`, which its tester reads to report a test's cases: a
 * head with a key and a value (`p[x] := v`, `p[x] if`), or without a key but with a var after the
 * name in its ref (`test_x[a][b] if`, whose cases nest).
 */
function isPartialObject(head: Head): boolean {
  if (head.key !== undefined) return head.value !== undefined
  return head.ref.slice(1).some((t) => !isConstant(t))
}
