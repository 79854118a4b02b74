import { describe, expect, it } from 'vitest'
import { partialEvaluate } from '../../../../core/rego/eval/partial.js'
import { compile, parseModule } from '../../../../core/rego/index.js'

const policy = compile(
  { 'p.rego': parseModule('package p\nallow if input.users[_] == "a"\n', { file: 'p.rego' }) },
  {},
)

describe('partial evaluation: unknowns given as text', () => {
  it('refuses several expressions in one unknown with OPA message, the body as OPA prints it', async () => {
    await expect(
      partialEvaluate(policy, 'data.p.allow', { unknowns: ['input;input.users'] }),
    ).rejects.toThrow('expected exactly one term but got: input; input.users')
  })

  it('still takes a single ref', async () => {
    const result = await partialEvaluate(policy, 'data.p.allow', { unknowns: ['input.users'] })
    expect(result.queries.length).toBeGreaterThan(0)
  })
})
