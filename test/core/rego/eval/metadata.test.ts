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

/**
 * OPA keeps `document` and `subpackages` blocks in one path tree (AnnotationSet.byPath), and
 * `GetSubpackagesScope` lists every block on the package's ancestor paths: a document block on
 * rule `data.a.b[k]` (path `a.b`) is an outer entry of the chain of a rule in package `a.b.c`.
 */
describe('rego.metadata.chain() path tree', () => {
  const modules = {
    'a.rego': 'package a\n\n# METADATA\n# scope: document\n# title: doc-b\nb[k] := 1 if some k in ["z"]\n',
    'c.rego':
      '# METADATA\n# scope: subpackages\n# title: sub-a\npackage a.b.c\n\nx := rego.metadata.chain()\n',
  }
  const p = compile(
    Object.fromEntries(Object.entries(modules).map(([f, s]) => [f, parseModule(s, { file: f })])),
  )

  it('lists the document block of an ancestor path', async () => {
    const run = await p.prepare('x := data.a.b.c.x').eval({ strictBuiltinErrors: true })
    const x = run.results[0]?.bindings.get('x')
    expect(x && toJS(x)).toEqual([
      { path: ['a', 'b', 'c', 'x'] },
      { path: ['a', 'b', 'c'], annotations: { scope: 'subpackages', title: 'sub-a' } },
      { path: ['a', 'b'], annotations: { scope: 'document', title: 'doc-b' } },
    ])
  })
})
