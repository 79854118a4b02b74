/**
 * `rego.metadata.chain()`, `rego.metadata.rule()` and `rego.parse_module` answer from the compiled
 * policy, also when the caller brings its own built-in context (as `regent eval`, `regent test`
 * and the agent do, for print, strict errors or allow_net). OPA's compiler rewrites the metadata
 * calls into constants (ast/compile.go, rewriteRegoMetadataCalls), so in OPA they never depend
 * on how the query is run; trivy-checks' METADATA-driven checks rely on that under `opa test`.
 */
import { describe, expect, it } from 'vitest'
import { createBuiltinContext } from '../../../../core/rego/builtins/context.js'
import { compile, parseModule, partialEvaluate, toJS } from '../../../../core/rego/index.js'

const source = `# METADATA
# title: pkg
package p

# METADATA
# title: r
r := rego.metadata.rule()

c := rego.metadata.chain()

m := rego.parse_module("x.rego", "package x").package.path[1].value
`

const policy = compile({ 'p.rego': parseModule(source, { file: 'p.rego' }) })

describe('policy hooks with a caller context', () => {
  it('rego.metadata.* and rego.parse_module see the policy', async () => {
    const ctx = createBuiltinContext({ strictBuiltinErrors: true })
    const run = await policy.prepare('x := data.p').eval({ ctx, strictBuiltinErrors: true })
    const x = run.results[0]?.bindings.get('x')
    expect(x && toJS(x)).toEqual({
      r: { scope: 'rule', title: 'r' },
      c: [{ path: ['p', 'c'] }, { path: ['p'], annotations: { scope: 'package', title: 'pkg' } }],
      m: 'x',
    })
  })

  it('partial evaluation with a caller context sees them too', async () => {
    const ctx = createBuiltinContext({ strictBuiltinErrors: true })
    const result = await partialEvaluate(policy, 'data.p.r.title = input.t', { ctx })
    // `"r" = input.t` remains; without the hook the rule is undefined and nothing remains.
    expect(result.queries).toHaveLength(1)
  })
})
