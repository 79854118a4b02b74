import { existsSync, readdirSync, readFileSync } from 'node:fs'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { closestStrings, hintsFor, levenshtein } from '../../compile/hints.js'
import { parseRefText } from '../../compile/refs.js'
import { residual } from './residual.js'

const CASES = path.resolve(import.meta.dirname, '../../../shared/conformance/compile')
// The conformance cases are read from ../shared, never copied here; without them these units skip.
const HAVE_CASES = existsSync(CASES)
if (!HAVE_CASES) console.warn(`skipping the conformance unit cases: ${CASES} is absent`)

describe('hintsFor', () => {
  it.skipIf(!HAVE_CASES)('passes the conformance hints units', () => {
    const files = readdirSync(CASES).filter((f) => f.startsWith('hints_unit_'))
    expect(files.length).toBeGreaterThan(0)
    for (const file of files) {
      const c = JSON.parse(readFileSync(path.join(CASES, file), 'utf8'))
      const failed = residual(...(c.request.failed_expressions as string[]))[0]!
      const unknowns = (c.request.unknowns as string[]).map(parseRefText)
      expect(
        hintsFor(failed, unknowns).map((h) => h.message),
        file,
      ).toEqual(c.expected.hint_messages)
    }
  })

  it('lists ties sorted, gives one hint per ref, and points at the expression', () => {
    const failed = residual('input.frut.cost > 1; input.frut.cost < 5; input.bar.x == 1')[0]!
    const hints = hintsFor(
      failed,
      ['input.fruit', 'input.fruits', 'input.baz', 'input.bat'].map(parseRefText),
    )
    expect(hints).toEqual([
      {
        message: 'input.frut.cost undefined, did you mean input.fruit.cost?',
        location: { file: 'filters.rego', row: 3, col: 1 },
      },
      {
        message: 'input.bar.x undefined, did you mean any of [input.bat.x input.baz.x]?',
        location: { file: 'filters.rego', row: 3, col: 43 },
      },
    ])
  })

  it('measures edit distance', () => {
    expect(levenshtein('kitten', 'sitting')).toBe(3)
    expect(closestStrings('baskets', ['fruit'])).toEqual([])
  })
})
