/**
 * `rego.metadata.rule()`, `rego.metadata.chain()` and `rego.parse_module` answer from the policy
 * also when the caller brings its own built-in context (as `regent eval`, `regent test`, the
 * service and the agent do with createBuiltinContext, which knows no policy). In OPA the
 * compiler rewrites the metadata calls into the rule's annotations, so they never depend on how
 * the query is run (docs: "Accessing annotations" in the policy reference).
 */
import { describe, expect, it } from 'vitest'
import { createBuiltinContext } from '../../../../core/rego/builtins/context.js'
import { compile, fromJS, parseModule, partialEvaluate, toJS } from '../../../../core/rego/index.js'

const source = `package x

# METADATA
# title: t
p := rego.metadata.rule()

q := rego.metadata.chain()

r := rego.parse_module("m.rego", "package m").package.path[1].value
`
const policy = compile({ 'x.rego': parseModule(source, { file: 'x.rego' }) })

describe('policy hooks with a caller-supplied context', () => {
  it('evaluates the metadata and parse_module built-ins', async () => {
    const run = await policy
      .query('data.x')
      .eval({ ctx: createBuiltinContext({ strictBuiltinErrors: true }), strictBuiltinErrors: true })
    expect(toJS(run.results[0]?.expressions[0]?.value ?? null)).toEqual({
      p: { scope: 'rule', title: 't' },
      q: [{ path: ['x', 'q'] }],
      r: 'm',
    })
  })

  it('keeps hooks the caller set', async () => {
    const ctx = createBuiltinContext({ regoMetadata: () => ({ chain: fromJS([]), rule: fromJS('mine') }) })
    const run = await policy.query('data.x.p').eval({ ctx })
    expect(toJS(run.results[0]?.expressions[0]?.value ?? null)).toBe('mine')
  })

  it('partially evaluates them too', async () => {
    const { queries } = await partialEvaluate(policy, 'data.x.p = v', { ctx: createBuiltinContext() })
    expect(JSON.stringify(queries)).toContain('"title"')
  })
})
