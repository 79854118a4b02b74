import { describe, expect, it } from 'vitest'
import { defineBuiltin } from '../../../../core/rego/builtins/define.js'
import { BuiltinCallError } from '../../../../core/rego/builtins/errors.js'
import { stringOperand } from '../../../../core/rego/builtins/operands.js'
import {
  builtinCapabilities,
  callBuiltin,
  DEFAULT_BUILTINS,
  indexBuiltins,
} from '../../../../core/rego/builtins/registry.js'
import { t } from '../../../../core/rego/types/index.js'
import { testContext } from './helpers.js'

const loc = { file: 'policy.rego', row: 3, col: 5, text: 'shout(1)', offset: 10 }

const shout = defineBuiltin({
  name: 'test.shout',
  category: 'strings',
  description: 'Upper-cases its input.',
  args: [t.named('x', t.string)],
  result: t.named('y', t.string),
  impl: (_ctx, [x]) => {
    const s = stringOperand(x, 1)
    if (s === 'boom') throw new Error('exploded')
    return s.toUpperCase()
  },
})

describe('defineBuiltin and callBuiltin', () => {
  it('derives arity and the function type from the declaration', () => {
    expect(shout.arity).toBe(1)
    expect(shout.kind).toBe('function')
    expect(shout.decl).toMatchObject({ kind: 'function', args: [{ kind: 'named', name: 'x' }] })
  })

  it('maps operand errors to eval_type_error with the name and location', () => {
    try {
      callBuiltin(shout, testContext(), [1], loc)
      expect.unreachable()
    } catch (err) {
      expect(err).toBeInstanceOf(BuiltinCallError)
      const e = err as BuiltinCallError
      expect(e.code).toBe('eval_type_error')
      expect(e.message).toBe('test.shout: operand 1 must be string but got number')
      expect(e.toString()).toBe(
        'policy.rego:3: eval_type_error: test.shout: operand 1 must be string but got number',
      )
      expect(e.toJSON()).toEqual({
        code: 'eval_type_error',
        message: 'test.shout: operand 1 must be string but got number',
        location: { file: 'policy.rego', row: 3, col: 5 },
      })
    }
  })

  it('maps other failures to eval_builtin_error', () => {
    expect(() => callBuiltin(shout, testContext(), ['boom'])).toThrow(
      expect.objectContaining({ code: 'eval_builtin_error', message: 'test.shout: exploded' }),
    )
    expect(callBuiltin(shout, testContext(), ['hi'])).toBe('HI')
  })
})

describe('DEFAULT_BUILTINS', () => {
  it('has unique names and a category, description and named arguments for each', () => {
    const index = indexBuiltins(DEFAULT_BUILTINS)
    expect(index.size).toBe(DEFAULT_BUILTINS.length)
    for (const b of DEFAULT_BUILTINS) {
      expect(b.category, b.name).not.toBe('')
      expect(b.description.length, b.name).toBeGreaterThan(5)
      for (const a of b.args) expect(a.kind).toBe('named')
    }
  })

  it('writes capabilities as OPA does', () => {
    const caps = builtinCapabilities()
    const names = caps.map((c) => c.name)
    expect(names).toEqual([...names].sort())
    expect(caps.find((c) => c.name === 'plus')).toEqual({
      name: 'plus',
      decl: { args: [{ type: 'number' }, { type: 'number' }], result: { type: 'number' }, type: 'function' },
      infix: '+',
    })
    expect(caps.find((c) => c.name === 'all')).toMatchObject({ deprecated: true })
    expect(JSON.stringify(caps.find((c) => c.name === 'count')?.decl)).toBe(
      '{"args":[{"of":[{"type":"string"},{"dynamic":{"type":"any"},"type":"array"},{"dynamic":{"key":{"type":"any"},"value":{"type":"any"}},"type":"object"},{"of":{"type":"any"},"type":"set"}],"type":"any"}],"result":{"type":"number"},"type":"function"}',
    )
  })
})
