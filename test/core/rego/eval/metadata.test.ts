/**
 * `rego.metadata.chain()` and `rego.metadata.rule()` in an `else` branch. OPA's compiler
 * (v1/ast/compile.go, rewriteRegoMetadataCalls) walks every rule of the else chain and asks
 * `AnnotationSet.Chain` / `GetRuleScope` for that rule itself; a METADATA block attaches to the
 * rule written below it, never to its else branches, so a call in an else branch sees the bare
 * path entry, then the document, package and subpackages entries, and `rule()` is `{}`.
 */
import { describe, expect, it } from 'vitest'
import { compile, parseModule, toJS } from '../../../../core/rego/index.js'

const source = `# METADATA
# title: pkg
package e

# METADATA
# title: f
f(x) := [rego.metadata.chain(), rego.metadata.rule()] if {
	x == 1
} else := [rego.metadata.chain(), rego.metadata.rule()]
`

const policy = compile({ 'e.rego': parseModule(source, { file: 'e.rego' }) })

async function value(query: string): Promise<unknown> {
  const run = await policy.prepare(`x := ${query}`).eval({ strictBuiltinErrors: true })
  const x = run.results[0]?.bindings.get('x')
  return x && toJS(x)
}

describe('rego.metadata in else branches', () => {
  const pkg = { path: ['e'], annotations: { scope: 'package', title: 'pkg' } }

  it('the first body sees the rule-scoped block', async () => {
    expect(await value('data.e.f(1)')).toEqual([
      [{ path: ['e', 'f'], annotations: { scope: 'rule', title: 'f' } }, pkg],
      { scope: 'rule', title: 'f' },
    ])
  })

  it('an else branch does not', async () => {
    expect(await value('data.e.f(2)')).toEqual([[{ path: ['e', 'f'] }, pkg], {}])
  })
})
