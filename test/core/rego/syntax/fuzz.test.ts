/**
 * Property tests: generated modules and randomly mutated conformance modules. The only outcomes
 * allowed are an AST or `rego_parse_error`s with locations inside the source; generated modules
 * that parse must also survive format -> parse unchanged, and format their own output unchanged.
 * Run counts are bounded.
 */
import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { RegoErrors } from '../../../../core/rego/errors.js'
import { formatModule } from '../../../../core/rego/format/formatter.js'
import { stringifyOpaJson } from '../../../../core/rego/syntax/json.js'
import { parseModuleWithErrors } from '../../../../core/rego/syntax/module-parser.js'
import { conformanceModules } from './conformance-modules.js'

const ident = fc.constantFrom('x', 'y', 'input.a', 'data.b.c', 'z[0]', 'f(x)', 'count(y)', '_')
const scalar = fc.oneof(
  fc.constantFrom('null', 'true', 'false', '0', '-1', '3.25', '1e3', '"s"', '"a\\nb"', '`raw`'),
  fc.integer({ min: -1000, max: 1000 }).map(String),
  fc.string({ maxLength: 8 }).map((s) => JSON.stringify(s)),
)

const { term } = fc.letrec<{ term: string }>((tie) => ({
  term: fc.oneof(
    { depthSize: 'small', withCrossShrink: true },
    scalar,
    ident,
    fc.array(tie('term'), { maxLength: 3 }).map((xs) => `[${xs.join(', ')}]`),
    fc.array(tie('term'), { minLength: 1, maxLength: 3 }).map((xs) => `{${xs.join(', ')}}`),
    fc
      .array(fc.tuple(scalar, tie('term')), { maxLength: 3 })
      .map((ps) => `{${ps.map(([k, v]) => `${k}: ${v}`).join(', ')}}`),
    fc
      .tuple(
        tie('term'),
        fc.constantFrom('+', '-', '*', '/', '%', '&', '|', '==', '!=', '<', '>='),
        tie('term'),
      )
      .map(([a, op, b]) => `(${a} ${op} ${b})`),
    tie('term').map((t) => `[x | some x in ${t}]`),
    tie('term').map((t) => `{x | some x in ${t}}`),
    tie('term').map((t) => `{k: v | some k, v in ${t}}`),
    tie('term').map((t) => `$"v={${t}}"`),
    tie('term').map((t) => `$\`raw {${t}}\``),
    tie('term').map((t) => `[${t}][0]`),
    fc.constantFrom('-5', '-input.a', '-x', '- 2.5'),
  ),
}))

const literal = fc.oneof(
  term,
  fc.tuple(ident, term).map(([a, b]) => `${a.replace(/\W.*/, '') || 'x'} := ${b}`),
  fc.tuple(term, term).map(([a, b]) => `${a} == ${b}`),
  term.map((t) => `not ${t}`),
  term.map((t) => `some k, v in ${t}`),
  term.map((t) => `every v in ${t} { v }`),
  term.map((t) => `count(${t}) > 0 with input as ${t}`),
  term.map((t) => `x in ${t}`),
  term.map((t) => `not "k", 1 in ${t}`),
  term.map((t) => `every k, v in ${t} { k; v }`),
  fc.tuple(term, term).map(([a, b]) => `${a} != ${b} with data.b.c as ${b}`),
)

const ruleText = fc.oneof(
  fc
    .tuple(fc.constantFrom('p', 'q', 'r'), fc.array(literal, { minLength: 1, maxLength: 3 }))
    .map(([name, lits]) => `${name} if {\n\t${lits.join('\n\t')}\n}`),
  fc.tuple(fc.constantFrom('s', 't'), term).map(([name, t]) => `${name} := ${t}`),
  fc.tuple(term, literal).map(([t, l]) => `u contains ${t} if ${l}`),
  fc.tuple(term, literal).map(([t, l]) => `w[k] := ${t} if { k := 1; ${l} }`),
  fc.tuple(term, term).map(([a, b]) => `default d := 1\n\nf(a) := ${a} if a > 1\n\nf(a) := ${b} if a <= 1`),
  fc
    .tuple(literal, term, literal)
    .map(([l1, t, l2]) => `e := 1 if {\n\t${l1}\n} else := ${t} if ${l2} else := 3`),
  // Ref heads: constant and variable parts, multi-value and single-value, with and without bodies.
  fc
    .tuple(
      fc.constantFrom('a.b', 'a["b"]', 'a.b[r]', 'a[r].c', 'a.b.c[r]', 'a[1].b'),
      fc.constantFrom(' contains ', ' := '),
      term,
      fc.option(literal, { nil: undefined }),
    )
    .map(([head, op, t, l]) => {
      const vars = head.includes('[r]') ? 'r := 1' : ''
      const body = [vars, l].filter(Boolean).join('; ')
      return `${head}${op}${t}${body ? ` if { ${body} }` : ''}`
    }),
)

const moduleText = fc
  .array(ruleText, { minLength: 1, maxLength: 4 })
  .map((rules) => `package fuzz\n\n${rules.join('\n\n')}\n`)

function expectOnlyParseErrors(text: string, errors: unknown[]): void {
  for (const e of errors as Array<{ code: string; location?: { row: number } }>) {
    expect(e.code).toBe('rego_parse_error')
    if (e.location) expect(e.location.row).toBeLessThanOrEqual(text.split('\n').length + 1)
  }
}

const norm = (text: string) => text.replaceAll(',"assign":true', '').replaceAll('"assign":true,', '')

/** Parses `text`: an AST or parse errors only; an AST must come back unchanged through fmt. */
function expectParseAndRoundTrip(text: string): void {
  const { module, errors } = parseModuleWithErrors(text, { file: 'fuzz.rego' })
  if (!module) {
    expect(errors.length).toBeGreaterThan(0)
    expectOnlyParseErrors(text, errors)
    return
  }
  const formatted = formatModule(module)
  const again = parseModuleWithErrors(formatted, { file: 'fuzz.rego' })
  expect(again.errors.map(String)).toEqual([])
  const a = norm(stringifyOpaJson(module, { comments: false }))
  const b = norm(stringifyOpaJson(again.module as never, { comments: false }))
  expect(b).toEqual(a)
  expect(formatModule(again.module as never)).toBe(formatted)
}

/** `text` with a line break after the commas and opening brackets that `chosen` picks. */
function breakLines(text: string, chosen: boolean[]): string {
  let n = 0
  return text.replace(/[,[{(]/g, (c) => (chosen[n++ % chosen.length] ? `${c}\n` : c))
}

describe('fuzzing the parser', () => {
  it('generated modules parse to an AST or a rego_parse_error, and parsed ones round-trip through fmt', () => {
    fc.assert(fc.property(moduleText, expectParseAndRoundTrip), { numRuns: 1000 })
  })

  it('the same with line breaks inside composites, calls and bodies', () => {
    const broken = fc
      .tuple(moduleText, fc.array(fc.boolean(), { minLength: 1, maxLength: 5 }))
      .map(([text, chosen]) => breakLines(text, chosen))
    fc.assert(fc.property(broken, expectParseAndRoundTrip), { numRuns: 1000 })
  })

  const seeds = conformanceModules()
    .filter((_, i) => i % 40 === 0)
    .map((m) => m.text)

  it.skipIf(seeds.length === 0)('mutated conformance modules never crash the parser', () => {
    const mutation = fc.tuple(
      fc.constantFrom(...seeds),
      fc.nat(),
      fc.nat({ max: 12 }),
      fc.constantFrom(
        '',
        '{',
        '}',
        '[',
        ']',
        '(',
        ')',
        '"',
        '`',
        '$"',
        ':=',
        ' if ',
        ' in ',
        '\n',
        '#',
        '.',
        ',',
        '|',
        'not',
        '-',
      ),
    )
    fc.assert(
      fc.property(mutation, ([seed, at, len, insert]) => {
        const pos = at % (seed.length + 1)
        const text = seed.slice(0, pos) + insert + seed.slice(pos + len)
        let result: ReturnType<typeof parseModuleWithErrors> | undefined
        try {
          result = parseModuleWithErrors(text, { file: 'mutant.rego' })
        } catch (err) {
          expect.fail(`parser threw ${err instanceof RegoErrors ? 'RegoErrors' : String(err)} on:\n${text}`)
        }
        if (!result.module) {
          expect(result.errors.length).toBeGreaterThan(0)
          expectOnlyParseErrors(
            text,
            result.errors.map((e) => e.toJSON()),
          )
        }
      }),
      { numRuns: 500 },
    )
  })

  it('random byte strings never crash the parser', () => {
    fc.assert(
      fc.property(fc.string({ maxLength: 200 }), (junk) => {
        const { module, errors } = parseModuleWithErrors(`package x\n${junk}`, { file: 'junk.rego' })
        if (!module)
          expectOnlyParseErrors(
            junk,
            errors.map((e) => e.toJSON()),
          )
      }),
      { numRuns: 1000 },
    )
  })
})
