import { describe, expect, it } from 'vitest'
import { parseModule } from '../../../../core/rego/syntax/module-parser.js'
import { elseChain, exprs, terms, walk } from '../../../../core/rego/syntax/walk.js'

describe('walk', () => {
  const m = parseModule('package a\np := x if {\n\tx := [y | some y in input.ys]\n} else := 0\n')

  it('visits terms and expressions, including comprehension bodies', () => {
    const vars = terms(m)
      .filter((t) => t.type === 'var')
      .map((t) => t.value)
    expect(vars).toEqual(expect.arrayContaining(['x', 'y', 'input', 'assign', 'internal']))
    // x := [...], the comprehension's `some`, and the generated `true` body of the else
    expect(exprs(m)).toHaveLength(3)
  })

  it('skips a subtree when the visitor returns false', () => {
    const seen: string[] = []
    walk(m, (n) => {
      seen.push(n.type)
      return n.type !== 'arraycomprehension'
    })
    expect(seen).toContain('arraycomprehension')
    expect(seen).not.toContain('somedecl')
  })

  it('lists else chains', () => {
    expect(elseChain(m.rules[0] as never)).toHaveLength(2)
  })
})
