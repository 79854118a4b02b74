import { describe, expect, it } from 'vitest'
import { createBuiltinContext } from '../../../../core/rego/builtins/context.js'
import { bodyString } from '../../../../core/rego/compiler/text.js'
import { Frame } from '../../../../core/rego/eval/bindings.js'
import { Evaluator } from '../../../../core/rego/eval/evaluator.js'
import { constantValue } from '../../../../core/rego/eval/prepare.js'
import { savedToAst } from '../../../../core/rego/eval/save.js'
import { compile, parseModule } from '../../../../core/rego/index.js'
import type { Term } from '../../../../core/rego/syntax/ast.js'
import { toJS, type Value } from '../../../../core/rego/values/index.js'

const toTerm = (v: Value): Term =>
  typeof v === 'string' ? { type: 'string', value: v } : { type: 'number', value: JSON.stringify(toJS(v)) }

describe('partial evaluation hooks', () => {
  it('saves unifications and calls that meet an unknown instead of failing', () => {
    const p = compile({ 'p.rego': parseModule('package a\np := 1', { file: 'p.rego' }) }, {})
    const q = p.prepare('x := input.owner; y := data.a.p; x == "alice"')
    const e = new Evaluator(p, { ctx: createBuiltinContext() })
    e.beginPartial([['input']])
    const frame = new Frame(q.names.length, q.names)
    const residuals: string[] = []
    e.evalQuery(q.body, frame, () => {
      residuals.push(bodyString(savedToAst(e.saveStack?.peek() ?? [], toTerm)))
      return false
    })
    expect(residuals).toHaveLength(1)
    expect(residuals[0]).toMatch(/input\.owner/)
    expect(residuals[0]).toMatch(/"alice"/)
    expect(residuals[0]).not.toMatch(/data\.a\.p/)
  })

  it('knows which refs are unknown', () => {
    const p = compile({ 'p.rego': parseModule('package a\np := 1', { file: 'p.rego' }) }, {})
    const e = new Evaluator(p, { ctx: createBuiltinContext() })
    expect(e.partial()).toBe(false)
    e.beginPartial([['input', 'fruits']])
    expect(e.partial()).toBe(true)
    expect(e.saveSet?.containsRef('input', ['fruits', 0])).toBe(true)
    expect(e.saveSet?.containsRef('input', [])).toBe(true)
    expect(e.saveSet?.containsRef('input', ['vegetables'])).toBe(false)
    expect(constantValue({ type: 'number', value: '1' })).toBe(1)
  })
})
