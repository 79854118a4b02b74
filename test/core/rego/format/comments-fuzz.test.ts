/**
 * Property test for comments, where a formatter most easily goes wrong: OPA's compliance modules
 * with comments added at the ends of chosen lines, on lines of their own above them, or after
 * opening brackets and commas (with a line break). `fmt` must keep every comment, keep the AST,
 * and be idempotent. Run counts are bounded.
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

type Placement = 'line end' | 'own line' | 'after bracket or comma'

/** `text` with `# cN` comments where `chosen` picks, placed as `where` says, and how many. */
function withComments(text: string, chosen: boolean[], where: Placement): { text: string; count: number } {
  let count = 0
  const pick = (i: number) => chosen[i % chosen.length]
  if (where === 'after bracket or comma') {
    let n = 0
    const out = text.replace(/[,[{(]/g, (c) => (pick(n++) ? `${c} # c${count++}\n` : c))
    return { text: out, count }
  }
  const lines = text.split('\n').map((line, i) => {
    if (i === 0 || line.trim() === '' || !pick(i)) return line
    const comment = `# c${count++}`
    return where === 'own line' ? `${line.match(/^\s*/)?.[0]}${comment}\n${line}` : `${line} ${comment}`
  })
  return { text: lines.join('\n'), count }
}

describe.skipIf(seeds.length === 0)('formatting modules with comments anywhere', () => {
  it('keeps every comment and the AST, and formats its own output unchanged', () => {
    const input = fc.tuple(
      fc.constantFrom(...seeds),
      fc.array(fc.boolean(), { minLength: 1, maxLength: 7 }),
      fc.constantFrom<Placement>('line end', 'own line', 'after bracket or comma'),
    )
    fc.assert(
      fc.property(input, ([seed, chosen, where]) => {
        const { text, count } = withComments(seed, chosen, where)
        const parsed = parseModuleWithErrors(text).module
        const original = parseModuleWithErrors(seed).module
        // A comment marker added inside a multi-line raw string is text, not a comment: skip those.
        if (!parsed || !original || astOf(parsed) !== astOf(original)) return
        const out = formatModule(parsed)
        const again = parseModuleWithErrors(out).module
        expect(again, out).toBeDefined()
        expect(astOf(again as never)).toBe(astOf(parsed))
        // Every comment once: not lost, not printed twice.
        for (let i = 0; i < count; i++) expect(out.match(new RegExp(`# c${i}(?!\\d)`, 'g'))).toHaveLength(1)
        expect(formatModule(again as never)).toBe(out)
      }),
      { numRuns: 2000 },
    )
  })
})
