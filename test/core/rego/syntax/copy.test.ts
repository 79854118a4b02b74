import { describe, expect, it } from 'vitest'
import { copyBody, copyModule, copyRule, copyTerm } from '../../../../core/rego/syntax/copy.js'
import { parseModule } from '../../../../core/rego/syntax/module-parser.js'
import { parseTermText } from '../../../../core/rego/syntax/query.js'
import { locationText } from '../../../../core/rego/syntax/source.js'
import { json } from './helpers.js'

describe('AST copies', () => {
  it('copy rules deeply: changing the copy leaves the original alone', () => {
    const m = parseModule('package a\np := {"a": [x | some x in input]} if { input.y } else := 1\n')
    const rule = m.rules[0] as (typeof m.rules)[number]
    const copy = copyRule(rule)
    expect(json(copy)).toEqual(json(rule))
    const term = copy.body[0]?.terms as { type: string; value: Array<{ value: string }> }
    expect(term.type).toBe('ref')
    ;(term.value[0] as { value: string }).value = 'changed'
    expect(json(copy)).not.toEqual(json(rule))
    expect(JSON.stringify(json(rule))).toContain('"value":"input"')
    expect(copy.else).not.toBe(rule.else)
  })

  it('keep locations, including their text', () => {
    const t = parseTermText('[1, {"k": input.v}]', { file: 'q.rego' })
    const c = copyTerm(t)
    expect(c).not.toBe(t)
    expect(locationText(c.location)).toBe('[1, {"k": input.v}]')
    expect(copyBody([])).toEqual([])
  })

  it('copy modules: package, imports and rules are new objects, annotations are shared', () => {
    const m = parseModule(
      'package a.b\nimport data.x.y as z\n# METADATA\n# title: P\np contains 1 if input.q\n',
      { file: 'm.rego' },
    )
    const c = copyModule(m)
    expect(json(c)).toEqual(json(m))
    expect(c.package.path[1]).not.toBe(m.package.path[1])
    expect(c.imports[0]?.path).not.toBe(m.imports[0]?.path)
    expect(c.rules[0]).not.toBe(m.rules[0])
    expect(c.rules[0]?.annotations?.[0]).toBe(m.annotations[0])
    ;(c.package.path[1] as { value: string }).value = 'changed'
    expect((m.package.path[1] as { value: string }).value).toBe('a')
  })
})
