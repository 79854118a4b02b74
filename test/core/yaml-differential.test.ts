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
