/**
 * The values a template sees, modelled on the Go values OPA hands text/template: OPA decodes the
 * variables object from its Rego text with json.Decoder.UseNumber (ast.As), so objects are
 * `map[string]interface {}`, arrays `[]interface {}`, numbers `json.Number` (a string type holding
 * the number's text), strings, booleans and nil. Template constants add Go ints and float64s;
 * indexing a string yields a byte. A value read out of a map or slice sits in an interface
 * (`iface`), which matters to Go's error messages and to how nil behaves.
 */
import { isArray, isNumberValue, isObject, isSet, numberText, type Value } from '../../values/index.js'
import { type GoArg, goSprintf } from '../go-format.js'
import { isGoPrint } from './errors.js'

export type GoValue =
  /** Go's zero reflect.Value: a missing map key, a nil taken out of its interface. */
  | { k: 'invalid' }
  /** An interface value; `v` undefined is a nil interface (JSON null inside a container). */
  | { k: 'iface'; v: GoValue | undefined }
  | { k: 'bool'; v: boolean }
  | { k: 'string'; v: string }
  /** json.Number: the number's text. */
  | { k: 'number'; v: string }
  | { k: 'int'; v: bigint }
  /** A byte (uint8), from indexing a string. */
  | { k: 'uint8'; v: number }
  | { k: 'float'; v: number }
  /** Elements (undefined: nil) and the capacity Go's JSON decoder left the slice with. */
  | { k: 'slice'; v: ReadonlyArray<GoValue | undefined>; cap: number }
  | { k: 'map'; v: ReadonlyMap<string, GoValue | undefined> }

export const INVALID: GoValue = { k: 'invalid' }

/** Go's interface{} holding `v` (undefined: nil). */
export function box(v: GoValue | undefined): GoValue {
  return { k: 'iface', v }
}

/** indirectInterface: the value inside an interface; a nil interface is the invalid value. */
export function unbox(v: GoValue): GoValue {
  return v.k === 'iface' ? (v.v ?? INVALID) : v
}

/** The Go type name (`reflect.Type.String()`); the invalid value has none. */
export function typeName(v: GoValue): string {
  switch (v.k) {
    case 'iface':
      return 'interface {}'
    case 'bool':
      return 'bool'
    case 'string':
      return 'string'
    case 'number':
      return 'json.Number'
    case 'int':
      return 'int'
    case 'uint8':
      return 'uint8'
    case 'float':
      return 'float64'
    case 'slice':
      return '[]interface {}'
    case 'map':
      return 'map[string]interface {}'
    case 'invalid':
      // Go panics here; text/template's safeCall reports the panic as the error.
      throw new ZeroValueError('Type')
  }
}

/** reflect's panic on a method of the zero Value, which Go's function calls turn into an error. */
export class ZeroValueError extends Error {
  constructor(method: string) {
    super(`reflect: call of reflect.Value.${method} on zero Value`)
  }
}

/** Go's byte length of a string. */
export function byteLength(s: string): number {
  return Buffer.byteLength(s, 'utf8')
}

/** isTrue: the truth of a value for `if`, `with`, `and`, `or`, `not`. */
export function truth(v: GoValue): boolean {
  const x = unbox(v)
  switch (x.k) {
    case 'invalid':
    case 'iface':
      return false
    case 'bool':
      return x.v
    case 'string':
    case 'number':
      return x.v.length > 0
    case 'int':
      return x.v !== 0n
    case 'uint8':
    case 'float':
      return x.v !== 0
    case 'slice':
      return x.v.length > 0
    case 'map':
      return x.v.size > 0
  }
}

/** Go's string order: bytewise, which for UTF-8 is code point order. */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0
  const ia = a[Symbol.iterator]()
  const ib = b[Symbol.iterator]()
  for (;;) {
    const x = ia.next()
    const y = ib.next()
    if (x.done || y.done) return x.done ? (y.done ? 0 : -1) : 1
    const cx = x.value.codePointAt(0) as number
    const cy = y.value.codePointAt(0) as number
    if (cx !== cy) return cx < cy ? -1 : 1
  }
}

/** The keys of a map in fmt's and range's order. */
export function sortedKeys(m: ReadonlyMap<string, unknown>): string[] {
  return [...m.keys()].sort(compareStrings)
}

/** The value as fmt sees it when it arrives as an `interface{}` argument. */
export function toGoArg(v: GoValue | undefined): GoArg {
  const x = v === undefined ? INVALID : unbox(v)
  switch (x.k) {
    case 'invalid':
    case 'iface':
      return { kind: 'nil' }
    case 'bool':
      return { kind: 'bool', value: x.v }
    case 'string':
      return { kind: 'string', value: x.v }
    case 'number':
      return { kind: 'stringer', type: 'json.Number', value: x.v }
    case 'int':
      return { kind: 'int', value: x.v, big: false }
    case 'uint8':
      return { kind: 'int', value: BigInt(x.v), big: false, type: 'uint8' }
    case 'float':
      return { kind: 'float', value: x.v }
    case 'slice':
      return { kind: 'slice', type: '[]interface {}', elems: x.v.map(toGoArg) }
    case 'map':
      return {
        kind: 'map',
        type: 'map[string]interface {}',
        entries: sortedKeys(x.v).map(
          (key) => [{ kind: 'string', value: key }, toGoArg(x.v.get(key))] as const,
        ),
      }
  }
}

/** fmt.Sprint of one value (`%v`). */
export function formatV(v: GoValue): string {
  return goSprintf('%v', [toGoArg(v)])
}

/** The capacity Go's JSON decoder leaves a decoded array with (it appends from an empty slice). */
function decodedCap(n: number): number {
  if (n === 0) return 0
  if (n > 256) return n
  let c = 1
  while (c < n) c *= 2
  return c
}

/** How OPA's decode of the variables fails (the json.Decoder's syntax error, Go's wording). */
export class DecodeError extends Error {}

/** The first character of a value's Rego text (what the JSON decoder trips over). */
function firstChar(v: Value): string {
  if (v === null) return 'n'
  if (typeof v === 'boolean') return v ? 't' : 'f'
  if (typeof v === 'string') return '"'
  if (isNumberValue(v)) return numberText(v)[0] ?? '0'
  if (isArray(v)) return '['
  if (isSet(v)) return v.size === 0 ? 's' : '{'
  return '{'
}

/** strconv.Quote escapes a few characters in ways JSON rejects (`\a`, `\v`, `\x00`, `\U…`). */
function checkQuotable(s: string): void {
  for (const ch of s) {
    const c = ch.codePointAt(0) as number
    if (c === 7) throw new DecodeError("invalid character 'a' in string escape code")
    if (c === 11) throw new DecodeError("invalid character 'v' in string escape code")
    if (c === 8 || c === 9 || c === 10 || c === 12 || c === 13) continue
    if (c < 0x20 || c === 0x7f || (c >= 0xd800 && c <= 0xdfff))
      throw new DecodeError("invalid character 'x' in string escape code")
    if (c >= 0x10000 && !isGoPrint(c)) throw new DecodeError("invalid character 'U' in string escape code")
  }
}

/**
 * Converts a Rego value as OPA's `ast.As` does: through its Rego text and a JSON decode. Sets and
 * non-string keys are not JSON, so they fail as the decoder fails on them. `charge` is called once
 * per value converted, for the evaluation budget.
 */
export function fromRego(v: Value, charge: () => void): GoValue | undefined {
  charge()
  if (v === null) return undefined
  if (typeof v === 'boolean') return { k: 'bool', v }
  if (typeof v === 'string') {
    checkQuotable(v)
    return { k: 'string', v }
  }
  if (isNumberValue(v)) return { k: 'number', v: numberText(v) }
  if (isArray(v)) {
    const elems = v.map((x) => fromRego(x, charge))
    return { k: 'slice', v: elems, cap: decodedCap(elems.length) }
  }
  if (isSet(v)) {
    if (v.size === 0) throw new DecodeError("invalid character 's' looking for beginning of value")
    const first = v.values()[0] as Value
    if (typeof first !== 'string')
      throw new DecodeError(
        `invalid character '${firstChar(first)}' looking for beginning of object key string`,
      )
    checkQuotable(first)
    throw new DecodeError(`invalid character '${v.size > 1 ? ',' : '}'}' after object key`)
  }
  if (!isObject(v)) return undefined
  const m = new Map<string, GoValue | undefined>()
  for (const [key, x] of v.entries()) {
    if (typeof key !== 'string')
      throw new DecodeError(
        `invalid character '${firstChar(key)}' looking for beginning of object key string`,
      )
    checkQuotable(key)
    m.set(key, fromRego(x, charge))
  }
  return { k: 'map', v: m }
}
