/**
 * The js-yaml schemas readYaml reads with: the scalar rules of the `yaml` package's `core` (YAML 1.2)
 * and `yaml-1.1` schemas, copied regex for regex, so that moving the reader to js-yaml (about ten
 * times faster) changed no value. js-yaml's own types differ in details (underscores in 1.2 numbers,
 * `0b` ints, `y`/`n` booleans), hence types of our own. YAML 1.1 numbers are since read as go-yaml
 * v2 reads them (./yaml-go-numbers.ts), the reader OPA's YAML goes through.
 *
 * Explicit tags behave as the `yaml` package has them: `!!int abc` (a value its tag cannot read) and
 * tags nobody knows (`!thing x`) keep the text as a string instead of failing the document.
 */
import type { Schema, Type } from 'js-yaml'
import { goYamlFloat, goYamlInt } from './yaml-go-numbers.js'
import { yamlLibrary } from './yaml-library.js'

/** Which schema: the options of readYaml that change how scalars read. */
export interface SchemaChoice {
  version: '1.1' | '1.2'
  intAsBigInt: boolean
  timestampsAsStrings: boolean
}

/** One way a tag reads a plain scalar: a pattern and what the matching text is. */
interface ScalarFormat {
  test: { test(text: string): boolean }
  value: (text: string, asBigInt: boolean) => unknown
}

const TAG = 'tag:yaml.org,2002:'

const NULL: ScalarFormat[] = [{ test: /^(?:~|[Nn]ull|NULL)?$/, value: () => null }]

const BOOL_12: ScalarFormat[] = [
  { test: /^(?:[Tt]rue|TRUE|[Ff]alse|FALSE)$/, value: (s) => s[0] === 't' || s[0] === 'T' },
]
const BOOL_11: ScalarFormat[] = [
  { test: /^(?:Y|y|[Yy]es|YES|[Tt]rue|TRUE|[Oo]n|ON)$/, value: () => true },
  { test: /^(?:N|n|[Nn]o|NO|[Ff]alse|FALSE|[Oo]ff|OFF)$/, value: () => false },
]

const INT_12: ScalarFormat[] = [
  { test: /^0o[0-7]+$/, value: (s, big) => (big ? BigInt(s) : Number.parseInt(s.substring(2), 8)) },
  { test: /^[-+]?[0-9]+$/, value: (s, big) => (big ? BigInt(s) : Number.parseInt(s, 10)) },
  { test: /^0x[0-9a-fA-F]+$/, value: (s, big) => (big ? BigInt(s) : Number.parseInt(s.substring(2), 16)) },
]

/**
 * YAML 1.1 integers as go-yaml v2 reads them (./yaml-go-numbers.ts): Go's base-0 prefixes, no base
 * 60, and only what fits 64 bits (a longer integer is a float).
 */
const INT_11: ScalarFormat[] = [
  {
    test: { test: (s) => goYamlInt(s, true) !== undefined },
    value: (s, big) => goYamlInt(s, big) as number | bigint,
  },
]

const FLOAT_SPECIAL: ScalarFormat = {
  test: /^(?:[-+]?\.(?:inf|Inf|INF)|\.nan|\.NaN|\.NAN)$/,
  value: (s) =>
    s.slice(-3).toLowerCase() === 'nan' ? Number.NaN : s[0] === '-' ? -Infinity : Number.POSITIVE_INFINITY,
}
const FLOAT_12: ScalarFormat[] = [
  FLOAT_SPECIAL,
  { test: /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)[eE][-+]?[0-9]+$/, value: (s) => Number.parseFloat(s) },
  { test: /^[-+]?(?:\.[0-9]+|[0-9]+\.[0-9]*)$/, value: (s) => Number.parseFloat(s) },
]
/** YAML 1.1 floats as go-yaml v2 reads them: `.inf`/`.nan`, and what ParseFloat reads in range. */
const FLOAT_11: ScalarFormat[] = [
  FLOAT_SPECIAL,
  { test: { test: (s) => goYamlFloat(s) !== undefined }, value: (s) => goYamlFloat(s) as number },
]

const TIMESTAMP_TEST =
  /^([0-9]{4})-([0-9]{1,2})-([0-9]{1,2})(?:(?:t|T|[ \t]+)([0-9]{1,2}):([0-9]{1,2}):([0-9]{1,2}(\.[0-9]+)?)(?:[ \t]*(Z|[-+][012]?[0-9](?::[0-9]{2})?))?)?$/

/** A zone `-5`, `+05:30` read as the yaml package did (`h:mm` in base 60): -5, 330. */
function zoneMinutes(zone: string): number {
  const n = zone
    .substring(1)
    .split(':')
    .reduce((acc, p) => acc * 60 + Number(p), 0)
  return zone[0] === '-' ? -n : n
}

/** A YAML 1.1 timestamp as a Date (UTC when the text names no zone), as the yaml package reads it. */
function timestamp(text: string): Date {
  const match = text.match(TIMESTAMP_TEST) as RegExpMatchArray
  const [, year, month, day, hour, minute, second] = match.map(Number) as number[]
  const millis = match[7] ? Number(`${match[7]}00`.substring(1, 4)) : 0
  let date = Date.UTC(year!, month! - 1, day!, hour || 0, minute || 0, second || 0, millis)
  const zone = match[8]
  if (zone && zone !== 'Z') {
    let offset = zoneMinutes(zone)
    if (Math.abs(offset) < 30) offset *= 60
    date -= 60_000 * offset
  }
  return new Date(date)
}
const TIMESTAMP: ScalarFormat[] = [{ test: TIMESTAMP_TEST, value: timestamp }]

function match(formats: ScalarFormat[], text: string): ScalarFormat | undefined {
  for (const format of formats) if (format.test.test(text)) return format
  return undefined
}

/** A tag resolving plain scalars by its formats (an implicit type). */
function implicitType(name: string, formats: ScalarFormat[], asBigInt: boolean): Type {
  return new (yamlLibrary().Type)(TAG + name, {
    kind: 'scalar',
    resolve: (data: string | null) => match(formats, data ?? '') !== undefined,
    construct: (data: string | null) => {
      const text = data ?? ''
      return (match(formats, text) as ScalarFormat).value(text, asBigInt)
    },
  })
}

/** The same tag written explicitly (`!!int 12`): text its formats do not read stays a string. */
function explicitType(name: string, formats: ScalarFormat[], asBigInt: boolean): Type {
  return new (yamlLibrary().Type)(TAG + name, {
    kind: 'scalar',
    resolve: () => true,
    construct: (data: string | null) => {
      const text = data ?? ''
      const format = match(formats, text)
      return format ? format.value(text, asBigInt) : text
    },
  })
}

/** Tags nobody here knows (`!thing`, `!!foo`) read their node as if untagged. */
const unknownTags = (): Type[] =>
  (['scalar', 'sequence', 'mapping'] as const).map(
    (kind) =>
      new (yamlLibrary().Type)('', {
        kind,
        multi: true,
        construct: (data: unknown) => (kind === 'scalar' ? (data ?? '') : data),
      }),
  )

/** `!!set` as a Set of its keys (js-yaml would give an object of nulls). */
const setType = (): Type =>
  new (yamlLibrary().Type)(`${TAG}set`, {
    kind: 'mapping',
    resolve: (data: Record<string, unknown> | null) =>
      data === null || Object.values(data).every((v) => v === null),
    construct: (data: Record<string, unknown> | null) => new Set(Object.keys(data ?? {})),
  })

/** A list of one-key maps (what `!!omap` and `!!pairs` hold). */
function isPairList(data: unknown[] | null): boolean {
  return (data ?? []).every(
    (pair) =>
      pair !== null &&
      typeof pair === 'object' &&
      Object.getPrototypeOf(pair) === Object.prototype &&
      Object.keys(pair).length === 1,
  )
}

/** `!!omap` as a Map in order (js-yaml would give its list of one-key maps). */
const omapType = (): Type =>
  new (yamlLibrary().Type)(`${TAG}omap`, {
    kind: 'sequence',
    resolve: isPairList,
    construct: (data: Record<string, unknown>[] | null) =>
      new Map((data ?? []).map((pair) => Object.entries(pair)[0] as [string, unknown])),
  })

/** `!!pairs` as a list of one-key maps (js-yaml would give [key, value] lists). */
const pairsType = (): Type =>
  new (yamlLibrary().Type)(`${TAG}pairs`, { kind: 'sequence', resolve: isPairList })

/** `!!binary` as the yaml package read it: base64 into a Buffer. */
const binaryType = (): Type =>
  new (yamlLibrary().Type)(`${TAG}binary`, {
    kind: 'scalar',
    construct: (data: string | null) => Buffer.from(data ?? '', 'base64'),
  })

/** YAML 1.1 merge keys (`<<: *base`); js-yaml merges when a key resolves to this tag. */
const mergeType = (): Type =>
  new (yamlLibrary().Type)(`${TAG}merge`, { kind: 'scalar', resolve: (data: string | null) => data === '<<' })

const schemas = new Map<string, Schema>()

/** The schema for these options, built once. */
export function schemaFor(choice: SchemaChoice): Schema {
  const key = `${choice.version}/${choice.intAsBigInt}/${choice.timestampsAsStrings}`
  let schema = schemas.get(key)
  if (!schema) {
    schema = buildSchema(choice)
    schemas.set(key, schema)
  }
  return schema
}

function buildSchema({ version, intAsBigInt, timestampsAsStrings }: SchemaChoice): Schema {
  const v11 = version === '1.1'
  const tags: [string, ScalarFormat[]][] = [
    ['null', NULL],
    ['bool', v11 ? BOOL_11 : BOOL_12],
    ['int', v11 ? INT_11 : INT_12],
    ['float', v11 ? FLOAT_11 : FLOAT_12],
  ]
  const implicit = tags.map(([name, formats]) => implicitType(name, formats, intAsBigInt))
  if (v11 && !timestampsAsStrings) implicit.push(implicitType('timestamp', TIMESTAMP, intAsBigInt))
  if (v11) implicit.push(mergeType())
  const explicit = [
    ...unknownTags(),
    ...tags.map(([name, formats]) => explicitType(name, formats, intAsBigInt)),
    // `!!timestamp x` is a Date, except in YAML 1.1 with timestamps as strings (as the yaml package had it).
    explicitType('timestamp', v11 && timestampsAsStrings ? [] : TIMESTAMP, intAsBigInt),
    binaryType(),
    setType(),
    omapType(),
    pairsType(),
  ]
  return yamlLibrary().FAILSAFE_SCHEMA.extend({ implicit, explicit })
}
