import { describe, expect, it } from 'vitest'
import { Value } from '../../../../core/rego/values/index.js'
import { callWith, expectError, testContext } from './helpers.js'

describe('rego.* and opa.runtime', () => {
  it('metadata comes from the context hook', () => {
    const chain = [Value.record({ path: ['data', 'p'] })]
    const ctx = testContext({ regoMetadata: () => ({ chain, rule: Value.record({ title: 't' }) }) })
    expect(callWith(ctx, 'rego.metadata.chain')).toBe(chain)
    expect((callWith(ctx, 'rego.metadata.rule') as ReturnType<typeof Value.record>).get('title')).toBe('t')
    expectError('eval_builtin_error', 'rego metadata is not available', 'rego.metadata.rule')
  })

  it('parse_module uses the context parser and maps its errors', () => {
    const ctx = testContext({
      parseModule: (file, text) => {
        if (!text.startsWith('package'))
          throw new Error('rego_parse_error: unexpected eof token: expected ident')
        return Value.record({ file })
      },
    })
    expect(callWith(ctx, 'rego.parse_module', 'x.rego', 'package x')).toEqual(
      Value.record({ file: 'x.rego' }),
    )
    expect(() => callWith(ctx, 'rego.parse_module', 'x.rego', 'nope')).toThrow(
      'rego.parse_module: Error: rego_parse_error: unexpected eof token: expected ident',
    )
    expectError('eval_builtin_error', 'no Rego parser', 'rego.parse_module', 'x', 'package x')
  })

  it('opa.runtime returns the context value or {}', () => {
    expect(callWith(testContext(), 'opa.runtime')).toEqual(Value.object())
    const rt = Value.record({ version: '1.0' })
    expect(callWith(testContext({ runtime: rt }), 'opa.runtime')).toBe(rt)
  })
})
