/**
 * Which rules `regent test` reports case by case (OPA's tester: `Head.DocKind()` is
 * `PartialObjectDoc`): heads with a key and a value, and key-less heads with a var after the name
 * (`test_x[a][b] if`), whose object of cases nests.
 */
import { describe, expect, it } from 'vitest'
import { discoverTests } from '../../../cli/commands/test-discovery.js'
import { compilePolicy } from '../../../core/rego/eval/policy.js'
import { parseModule } from '../../../core/rego/index.js'

function parameterized(src: string): Record<string, boolean> {
  const policy = compilePolicy(
    { 'a_test.rego': parseModule(src, { file: 'a_test.rego' }) },
    {},
    { tests: true },
  )
  return Object.fromEntries(discoverTests(policy).map((t) => [t.name, t.partialObject]))
}

describe('discoverTests: parameterized tests', () => {
  it('reports the cases of one-key and nested-key heads, as OPA', () => {
    const src = [
      'package qux',
      'test_plain if true',
      'test_one[x] if { some x in ["foo", "bar"] }',
      'test_nested[x][y] if { some x in ["foo", "bar"]; some y in ["do", "re"] }',
      'test_assigned[x][y] if { x := "foo"; y := "bar" }',
      'test_ground[1] if true',
      'test_set contains x if { some x in [1] }',
    ].join('\n')
    expect(parameterized(src)).toEqual({
      test_plain: false,
      test_one: true,
      test_nested: true,
      test_assigned: true,
      test_ground: false,
      test_set: false,
    })
  })
})
