/**
 * Which rules `regent test` runs, named as OPA's tester names them (`tester.ruleName`): walking
 * the ground prefix of a rule's head ref, the first part that starts with `test_` (a test) or
 * `todo_test_` (a skipped test) names the test; the ref up to it is the test's ref, and whatever
 * follows it (`test_x[case]`) names the rule's test cases.
 */
import type { Head, Term } from '../syntax/ast.js'
import { stringTerm } from './terms.js'

/** Rules whose name starts with this are tests. */
export const TEST_PREFIX = 'test_'
/** Rules whose name starts with this are tests reported as skipped. */
export const SKIP_TEST_PREFIX = 'todo_test_'

/** A test rule's name and where it stands in its head ref. */
export interface TestRuleName {
  /** `test_x` (or `todo_test_x`). */
  name: string
  /** The head ref up to and including the name (`a.test_x` of `a.test_x[case]`). */
  ref: Term[]
  skip: boolean
}

/** The test a rule head defines, if any (functions included: OPA's tester does not skip them). */
export function testRuleName(head: Head): TestRuleName | undefined {
  for (const [i, part] of head.ref.entries()) {
    // The ground prefix: a var first, then constant keys; a var key ends it.
    if (i > 0 && (part.type === 'var' || !isScalar(part))) return undefined
    const name = part.type === 'var' || part.type === 'string' ? part.value : ''
    if (name.startsWith(TEST_PREFIX) || name.startsWith(SKIP_TEST_PREFIX)) {
      return { name, ref: head.ref.slice(0, i + 1), skip: name.startsWith(SKIP_TEST_PREFIX) }
    }
  }
  return undefined
}

function isScalar(t: Term): boolean {
  return t.type === 'string' || t.type === 'number' || t.type === 'boolean' || t.type === 'null'
}

/**
 * The full ref of a test (`data.pkg.test_x`, `data.pkg["test_x#01"]`): the package path extended
 * by the test's ref, its leading var made a key. OPA matches `--run` against its text and
 * evaluates it as the test's query.
 */
export function testPath(packagePath: Term[], ref: Term[]): Term[] {
  return [
    ...packagePath,
    ...ref.map((t, i) => (i === 0 && t.type === 'var' ? stringTerm(t.value, t.location) : t)),
  ]
}
