/**
 * Parentheses around `and` / `or` operands, as `opa fmt` writes them back (its
 * v1/format/testfiles/v1/test_logical_parens.rego and test_logical_not.rego): only where reading
 * the result again needs them.
 */
import { describe, expect, it } from 'vitest'
import { formatSource } from '../../../../core/rego/format/formatter.js'

const IMPORTS =
  'package p\n\nimport future.keywords.and\nimport future.keywords.not\nimport future.keywords.or\n\n'

function fmt(rule: string): string {
  const out = formatSource(`${IMPORTS}${rule}\n`, { file: 'p.rego' })
  expect(formatSource(out, { file: 'p.rego' })).toBe(out)
  return out.slice(IMPORTS.length, -1)
}

describe('and/or groups: formatting', () => {
  it.each([
    ['p if { ((input.a or input.b)) }', 'p if input.a or input.b'],
    ['p if input.a or (input.b or input.c)', 'p if input.a or (input.b or input.c)'],
    ['p if (input.a or input.b) or input.c', 'p if input.a or input.b or input.c'],
    ['p if input.a and (input.b and input.c)', 'p if input.a and (input.b and input.c)'],
    ['p if (input.a and input.b) or input.c', 'p if input.a and input.b or input.c'],
    ['p if input.c or (input.a and input.b)', 'p if input.c or input.a and input.b'],
    ['p if (input.a or input.b) and input.c', 'p if (input.a or input.b) and input.c'],
    [
      'p if input.a or (input.b and (input.c or input.d))',
      'p if input.a or input.b and (input.c or input.d)',
    ],
  ])('%s', (src, want) => expect(fmt(src)).toBe(want))

  it('keeps a brace-led operand in parentheses on either side', () => {
    expect(fmt('p if input.b or ({input.a})')).toBe('p if input.b or ({input.a})')
    expect(fmt('p if input.a and ({1, 2}) & input.s == set()')).toBe(
      'p if input.a and ({1, 2} & input.s == set())',
    )
  })

  it('keeps a leading union inside a braced operand in parentheses', () => {
    expect(fmt('p if input.c or {(input.a | input.b)}')).toBe('p if input.c or { (input.a | input.b) }')
  })

  it('writes a negated group in parentheses', () => {
    expect(fmt('p if { not (input.a or input.b) }')).toBe('p if not (input.a or input.b)')
    expect(fmt('p if not (input.a and (input.b or not input.c))')).toBe(
      'p if not (input.a and (input.b or not input.c))',
    )
    expect(fmt('p if not (input.a with input.x as 1)')).toBe('p if not (input.a with input.x as 1)')
  })
})
