/**
 * Property test for comments, where a formatter most easily goes wrong: OPA's compliance modules
 * with comments added at the ends of chosen lines or on lines of their own above them. `fmt` must
 * keep every comment, keep the AST, and be idempotent. Run counts are bounded.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { formatModule } from '../../../../core/rego/format/formatter.js'
import { parseModuleWithErrors } from '../../../../core/rego/syntax/module-parser.js'
import { conformanceModules } from '../syntax/conformance-modules.js'
import { astOf } from './ast-of.js'

// Every fourth module that parses: about 450 modules of every kind of construct.
const seeds = conformanceModules()
  .filter((m) => !m.wantParseError && parseModuleWithErrors(m.text).module)
  .filter((_, i) => i % 4 === 0)
  .map((m) => m.text)

/** `text` with `# cN` after (or above) the lines `chosen` picks, and how many were added. */
function withComments(text: string, chosen: boolean[], ownLine: boolean): { text: string; count: number } {
  let count = 0
  const lines = text.split('\n').map((line, i) => {
    if (i === 0 || line.trim() === '' || !chosen[i % chosen.length]) return line
    const comment = `# c${count++}`
    return ownLine ? `${line.match(/^\s*/)?.[0]}${comment}\n${line}` : `${line} ${comment}`
  })
  return { text: lines.join('\n'), count }
}

describe.skipIf(seeds.length === 0)('formatting modules with comments anywhere', () => {
  it('keeps every comment and the AST, and formats its own output unchanged', () => {
    const input = fc.tuple(
      fc.constantFrom(...seeds),
      fc.array(fc.boolean(), { minLength: 1, maxLength: 7 }),
      fc.boolean(),
    )
    fc.assert(
      fc.property(input, ([seed, chosen, ownLine]) => {
        const { text, count } = withComments(seed, chosen, ownLine)
        const parsed = parseModuleWithErrors(text).module
        const original = parseModuleWithErrors(seed).module
        // A comment marker added inside a multi-line raw string is text, not a comment: skip those.
        if (!parsed || !original || astOf(parsed) !== astOf(original)) return
        const out = formatModule(parsed)
        const again = parseModuleWithErrors(out).module
        expect(again, out).toBeDefined()
        expect(astOf(again as never)).toBe(astOf(parsed))
        for (let i = 0; i < count; i++) expect(out).toMatch(new RegExp(`# c${i}(?!\\d)`))
        expect(formatModule(again as never)).toBe(out)
      }),
      { numRuns: 1500 },
    )
  })
})
