/**
 * `testing`: tests that do not run where they are expected to, and debugging left in.
 */
import type { Term } from '../../rego/syntax/ast.js'
import { isCallExpr, operatorName } from '../../rego/syntax/ast.js'
import { walk } from '../../rego/syntax/walk.js'
import { packageName, ruleName } from '../ast-helpers.js'
import type { Finding, LintRule } from '../types.js'

/**
 * test-outside-test-package: tests in the package they test are compiled into every bundle built
 * from it; a `_test` package keeps them apart and makes them easy to exclude.
 */
export const testOutsideTestPackage: LintRule = {
  name: 'test-outside-test-package',
  category: 'testing',
  description: 'Test outside of test package',
  check({ file }) {
    if (packageName(file.module).endsWith('_test')) return []
    return file.module.rules
      .filter((r) => ruleName(r)?.startsWith('test_'))
      .map((r) => ({ location: r.location }))
  },
}

/**
 * todo-test: `todo_test_…` rules are skipped by `regent test`; they are promises, and a forgotten
 * one hides a missing test.
 */
export const todoTest: LintRule = {
  name: 'todo-test',
  category: 'testing',
  description: 'TODO test encountered',
  check({ file }) {
    return file.module.rules
      .filter((r) => ruleName(r)?.startsWith('todo_test_'))
      .map((r) => ({ location: r.location }))
  },
}

/**
 * identically-named-tests: two tests with one name are one incremental rule, so the test report
 * shows one result for two tests and a failure names neither.
 */
export const identicallyNamedTests: LintRule = {
  name: 'identically-named-tests',
  category: 'testing',
  description: 'Multiple tests with same name',
  check({ file }) {
    const seen = new Set<string>()
    const found: Finding[] = []
    for (const rule of file.module.rules) {
      const name = ruleName(rule)
      if (!name?.startsWith('test_')) continue
      if (seen.has(name)) found.push({ location: rule.location })
      seen.add(name)
    }
    return found
  },
}

/**
 * print-or-trace-call: `print` and `trace` are debugging aids; left in a policy they write to the
 * decision logs or the server's output on every evaluation. (Regal's category for this rule is
 * `testing`; regent keeps it there so existing `.regal/config.yaml` files apply.)
 */
export const printOrTraceCall: LintRule = {
  name: 'print-or-trace-call',
  category: 'testing',
  description: 'Call to print or trace function',
  check({ file }) {
    const found: Finding[] = []
    walk(file.module, (n) => {
      let op: Term | undefined
      if (n.type === 'call') op = n.value[0]
      else if (n.type === 'expr' && isCallExpr(n)) op = n.terms[0]
      const name = operatorName(op)
      if (name === 'print' || name === 'trace') found.push({ location: op?.location ?? n.location })
    })
    return found
  },
}

/**
 * file-missing-test-suffix: `regent test` and `opa test` users find tests by the `_test.rego`
 * suffix; a test in another file is easily left out of `--ignore` rules and bundle builds.
 */
export const fileMissingTestSuffix: LintRule = {
  name: 'file-missing-test-suffix',
  category: 'testing',
  description: 'Files containing tests should have a _test.rego suffix',
  check({ file }) {
    if (file.file.endsWith('_test.rego')) return []
    const test = file.module.rules.find((r) => ruleName(r)?.startsWith('test_'))
    return test ? [{ location: file.module.package.location }] : []
  },
}

export const TESTING_RULES: readonly LintRule[] = [
  testOutsideTestPackage,
  todoTest,
  identicallyNamedTests,
  printOrTraceCall,
  fileMissingTestSuffix,
]
