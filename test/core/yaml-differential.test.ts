/**
 * core/yaml.ts moved from the `yaml` package to js-yaml (ten times faster). This reads a corpus with
 * the old reader (test/core/yaml-legacy.ts, a copy kept for this test only) and the new one, under
 * every combination of options, and requires each difference to be one of those listed below.
 */
import { isDeepStrictEqual } from 'node:util'
import { describe, expect, it } from 'vitest'
import { readYaml, type YamlReadOptions } from '../../core/yaml.js'
import { CORPUS } from './yaml-differential.corpus.js'
import { readYaml as readYamlBefore } from './yaml-legacy.js'

/**
 * The differences, each justified. All come from one fact: js-yaml stores map keys as text, so a
 * key's type is not kept (`mapAsMap` Maps have string keys; `yaml.unmarshal`, their one user, turned
 * every key into a string anyway, with the same text for scalars) and keys equal as text are
 * duplicates.
 */
const DIFFERENCES: Record<string, string> = {
  // Typed keys in Maps (1, 2, true, 1n) are now strings; `y` is a 1.1 boolean key, now 'true'.
  '1: one\n2: two\n': 'map keys are strings (mapAsMap)',
  'base: &b {x: 1, y: 2}\nc:\n  <<: *b\n  y: 3\n': 'map keys are strings (mapAsMap, `y` is true in 1.1)',
  // A `null` key was '' in plain objects (the yaml package's rendering), now 'null', as Go reads it.
  'true: t\nnull: n\n1.5: f\n': "a null key is 'null', not ''; map keys are strings (mapAsMap)",
  // Collection keys: the yaml package wrote them as flow YAML ('[ a, b ]'), js-yaml as JS does
  // ('a,b', '[object Object]'); with mapAsMap they were arrays/Maps, now those strings.
  '? [a, b]\n: v\n': 'collection keys are stringified as JavaScript does',
  '[a, b]: c\n': 'collection keys are stringified as JavaScript does',
  '? {a: 1}\n: v\n': 'collection keys are stringified as JavaScript does',
  // `1` and `"1"` are the same key as text: refused as a duplicate. Before, plain objects kept the
  // last value silently and Maps held both.
  '1: a\n"1": b\n': 'keys equal as text are duplicates',
  // Two more, not about keys. An implicit key longer than 1024 characters (the YAML spec's limit,
  // which the yaml package enforced) is read by js-yaml.
  [`${'k'.repeat(1100)}: long implicit key\n`]: 'implicit keys past 1024 characters are read',
  // A raw NUL character anywhere in the text is refused by js-yaml (go-yaml refuses control
  // characters too); the escape `\0` in a double-quoted string still reads.
  'a: "x\u0000y"\n': 'a raw NUL character is a syntax error',
  // YAML 1.1 numbers are now read as go-yaml v2 (OPA's reader) reads them, not as the yaml package
  // did: Go's `0o` prefix, no base 60 (`190:20:30` stays a string), `-0` is 0.
  'a: 12\nb: -12\nc: +12\nd: 0o17\ne: 0x1F\nf: 017\ng: 0b101\nh: 1_000\ni: 0x_1F\nj: 190:20:30\nk: -1:30\n':
    'go-yaml v2 numbers: 0o17 is 15, base-60 numbers are strings',
  'a: 1.5\nb: .5\nc: 1.\nd: 1e3\ne: -1.5E-3\nf: .inf\ng: -.Inf\nh: .nan\ni: 1_000.5\nj: 190:20:30.15\nk: 6.8523015e+5\n':
    'go-yaml v2 numbers: a base-60 float is a string',
  // Past 64 bits an integer is a float (ParseInt and ParseUint fail), a hex one a string.
  'a: 12345678901234567890\nb: -98765432109876543210\nc: 0x1FFFFFFFFFFFFFFFF\n':
    'go-yaml v2 numbers: integers past 64 bits are floats, or strings in hex',
  // `!!float 1`: go-yaml reads the int and converts it to a float; the yaml package kept the text.
  'a: !!str 12\nb: !!int "12"\nc: !!float 1\nd: !!bool yes\ne: !!null ""\nf: !!int abc\n':
    'go-yaml v2 numbers: !!float of an integer is a number',
  // `-0` is 0, not -0; `09` (no octal) is the float 9, not the int.
  'a: 0\nb: -0\nc: 00\nd: 09\ne: 0.0\nf: -0.0\n': 'go-yaml v2 numbers: -0 is 0, 09 a float',
  // A float out of range: ParseFloat fails (ErrRange), so go-yaml keeps the text; it was Infinity.
  'a: 1e400\nb: 9007199254740993\n': 'go-yaml v2 numbers: 1e400 is a string',
}

const OPTION_SETS: YamlReadOptions[] = []
for (const version of ['1.2', '1.1'] as const)
  for (const intAsBigInt of [false, true])
    for (const mapAsMap of [false, true])
      for (const timestampsAsStrings of [false, true])
        OPTION_SETS.push({ version, intAsBigInt, mapAsMap, timestampsAsStrings })

type Outcome = { value: unknown } | { error: string; line?: number }

/** Buffers and Uint8Arrays compare by bytes; other values as they are. */
function comparable(value: unknown): unknown {
  if (value instanceof Uint8Array) return { bytes: Buffer.from(value).toString('base64') }
  if (value instanceof Map) return new Map([...value].map(([k, v]) => [comparable(k), comparable(v)]))
  if (value instanceof Set) return new Set([...value].map(comparable))
  if (Array.isArray(value)) return value.map(comparable)
  if (value !== null && typeof value === 'object' && !(value instanceof Date)) {
    const out: Record<string, unknown> = {}
    for (const [k, v] of Object.entries(value))
      Object.defineProperty(out, k, { value: comparable(v), enumerable: true })
    return out
  }
  return value
}

function outcome(read: typeof readYaml, text: string, options: YamlReadOptions): Outcome {
  try {
    return { value: comparable(read(text, options)) }
  } catch (err) {
    const e = err as { kind?: string; line?: number; message: string }
    // Duplicate keys are placed exactly; syntax messages are js-yaml's own, so only kinds compare.
    return e.kind === 'duplicate_key' ? { error: e.kind, line: e.line } : { error: e.kind ?? e.message }
  }
}

describe('readYaml on js-yaml reads what it read on the yaml package', () => {
  it('differs only where listed, for every combination of options', () => {
    const differing = new Set<string>()
    for (const text of CORPUS) {
      for (const options of OPTION_SETS) {
        const [before, now] = [outcome(readYamlBefore, text, options), outcome(readYaml, text, options)]
        if (!isDeepStrictEqual(before, now)) differing.add(text)
      }
    }
    expect([...differing].sort()).toEqual(Object.keys(DIFFERENCES).sort())
  })

  it('the corpus exercises every reading: errors of each kind and values of each type', () => {
    const kinds = new Set<string>()
    for (const text of CORPUS) {
      const result = outcome(readYaml, text, { version: '1.1', intAsBigInt: true })
      if ('error' in result) kinds.add(result.error)
    }
    expect([...kinds].sort()).toEqual(['alias', 'duplicate_key', 'self_reference', 'syntax'])
  })
})
