/**
 * Conversion between Rego values and JSON: JS data from `JSON.parse` or a typed API, JSON text
 * (parsed without losing big integers or long decimals, via lossless-json) and canonical JSON
 * output (object keys sorted, sets as sorted arrays), as OPA writes results.
 */
import { isLosslessNumber, parse as losslessParse } from 'lossless-json'
import { Decimal } from './decimal.js'
import { isNumber, numberFromBigInt, numberFromDouble, numberText, parseNumber, toDouble } from './number.js'
import { ObjectValue } from './object.js'
import { SetValue } from './set.js'
import type { Value } from './value.js'

/**
 * Converts JS data to a value: null, booleans, numbers (finite), bigints, strings, arrays, plain
 * objects, lossless-json numbers, and values already in Rego form. Throws a TypeError otherwise.
 */
export function fromJS(x: unknown): Value {
  switch (typeof x) {
    case 'string':
    case 'boolean':
      return x
    case 'number':
      return numberFromDouble(x)
    case 'bigint':
      return numberFromBigInt(x)
    case 'object': {
      if (x === null) return null
      if (Array.isArray(x)) return x.map(fromJS)
      if (x instanceof ObjectValue || x instanceof SetValue || x instanceof Decimal) return x
      if (isLosslessNumber(x)) return parseNumber(x.value) as Value
      if (x instanceof Set) return SetValue.from([...x].map(fromJS))
      if (x instanceof Map) return ObjectValue.from([...x].map(([k, v]) => [fromJS(k), fromJS(v)] as const))
      const proto = Object.getPrototypeOf(x)
      if (proto !== Object.prototype && proto !== null)
        throw new TypeError('cannot convert a class instance to a value')
      const obj = new ObjectValue()
      for (const k of Object.keys(x)) obj.set(k, fromJS((x as Record<string, unknown>)[k]))
      return obj
    }
    default:
      throw new TypeError(`cannot convert ${typeof x} to a value`)
  }
}

// Strings (skipped) and number tokens, to find numbers a double cannot hold exactly.
const TOKENS = /"(?:[^"\\]|\\.)*"|-?\d+(?:\.\d+)?(?:[eE][+-]?\d+)?/g

/** True when some number in the text would change if read as a double (long or huge lexemes). */
function mayLosePrecision(text: string): boolean {
  if (!/\d{16}|\d[.eE]|[eE][+-]?\d{3}/.test(text)) return false
  for (const m of text.matchAll(TOKENS)) {
    const tok = m[0]
    if (tok.charCodeAt(0) === 34) continue
    const d = Number(tok)
    // `1.0`, `1e2`: an integer in float form, which JSON.parse would turn into a plain integer.
    if (Number.isInteger(d) && /[.eE]/.test(tok)) return true
    // The common case: the lexeme is exactly the double's shortest form.
    if (String(d) === tok) continue
    // `1.50`: a fraction keeps the text it was written as (parseNumber), which JSON.parse drops.
    if (Number.isFinite(d) && !Number.isInteger(d)) return true
    if (tok.length < 16 && !/[eE][+-]?\d{3}/.test(tok)) continue
    const n = parseNumber(tok)
    if (typeof n !== 'number' || !Number.isFinite(d) || numberFromDouble(d) !== n) return true
  }
  return false
}

// A `\\uD800`-`\\uDFFF` escape: only escapes can give a string a surrogate that is not part of a pair.
const ESCAPED_SURROGATE = /\\u[dD][89a-fA-F]/
const LONE_SURROGATE = /[\ud800-\udbff](?![\udc00-\udfff])|(?<![\ud800-\udbff])[\udc00-\udfff]/g

// Go's decoder reads an escaped surrogate that is not half of a pair as U+FFFD.
function wellFormed(x: unknown): unknown {
  if (typeof x === 'string') return x.replace(LONE_SURROGATE, '\ufffd')
  if (Array.isArray(x)) return x.map(wellFormed)
  // Numbers the lossless parser made (Decimal) are objects too: only plain objects are documents.
  if (x === null || typeof x !== 'object' || Object.getPrototypeOf(x) !== Object.prototype) return x
  const out: Record<string, unknown> = {}
  for (const [k, v] of Object.entries(x)) {
    Object.defineProperty(out, wellFormed(k) as string, {
      value: wellFormed(v),
      enumerable: true,
      writable: true,
      configurable: true,
    })
  }
  return out
}

/**
 * Parses JSON text into a value without losing number precision; duplicate keys keep the last
 * value (as Go's decoder does). Throws a SyntaxError on invalid JSON.
 */
export function parseJSON(text: string): Value {
  try {
    const parsed = mayLosePrecision(text)
      ? losslessParse(text, null, {
          parseNumber: (token) => {
            const n = parseNumber(token)
            if (n === undefined) throw new SyntaxError(`invalid number ${token}`)
            return n
          },
          onDuplicateKey: (info) => info.newValue,
        })
      : JSON.parse(text)
    return fromJS(ESCAPED_SURROGATE.test(text) ? wellFormed(parsed) : parsed)
  } catch (err) {
    // Values are read and written recursively: thousands of nested arrays or objects exhaust
    // the JavaScript stack. Said as such rather than as "Maximum call stack size exceeded".
    if (err instanceof RangeError) throw new SyntaxError('JSON document nested too deeply')
    throw err
  }
}

/** How `toJS` renders numbers a JS number cannot hold exactly. */
export type BigNumberMode = 'number' | 'string'

/**
 * Converts a value to plain JSON-compatible JS: sets become sorted arrays, objects become
 * records (non-string keys are written as compact JSON, as OPA's `ast.JSON` does). Big numbers become the
 * nearest double, or their exact text with `bigNumbers: 'string'`.
 */
export function toJS(v: Value, options: { bigNumbers?: BigNumberMode } = {}): unknown {
  const mode = options.bigNumbers ?? 'number'
  const walk = (x: Value): unknown => {
    switch (typeof x) {
      case 'string':
      case 'boolean':
      case 'number':
        return x
      case 'bigint':
        return mode === 'string' ? x.toString() : Number(x)
      default: {
        if (x === null) return null
        if (Array.isArray(x)) return x.map(walk)
        if (x instanceof Decimal) return mode === 'string' ? x.toString() : toDouble(x)
        if (x instanceof SetValue) return x.values().map(walk)
        const out: Record<string, unknown> = {}
        for (const [k, val] of (x as ObjectValue).entries()) {
          Object.defineProperty(out, jsonKey(k), {
            value: walk(val),
            enumerable: true,
            writable: true,
            configurable: true,
          })
        }
        return out
      }
    }
  }
  return walk(v)
}

/** The JSON key OPA writes for an object key: strings as-is, anything else as compact JSON. */
function jsonKey(k: Value): string {
  return typeof k === 'string' ? k : toJSONText(k, { escapeHTML: true })
}

/** Options for {@link toJSONText}. */
export interface JSONTextOptions {
  /** Indentation per level; none for compact output. */
  indent?: string
  /** Text written at the start of every line after the first (Go's `MarshalIndent` prefix). */
  prefix?: string
  /** Escape `<`, `>` and `&` as `\u003c` etc., as Go's `json.Marshal` does. */
  escapeHTML?: boolean
}

const HTML_CHARS = /[<>&\u2028\u2029]/g

/** Quotes a string as JSON (optionally with Go's HTML escaping). */
export function quoteJSON(s: string, escapeHTML = false): string {
  const q = JSON.stringify(s)
  return escapeHTML ? q.replace(HTML_CHARS, (c) => `\\u${c.charCodeAt(0).toString(16).padStart(4, '0')}`) : q
}

/**
 * Canonical JSON text of a value, with every number exactly as stored.
 *
 * @example
 * toJSONText(Value.set([2, 1])) // '[1,2]'
 */
export function toJSONText(v: Value, options: JSONTextOptions = {}): string {
  const { indent, prefix = '', escapeHTML = false } = options
  const nl = indent !== undefined ? `\n${prefix}` : ''
  const colon = indent !== undefined ? ': ' : ':'
  const walk = (x: Value, depth: string): string => {
    if (x === null) return 'null'
    switch (typeof x) {
      case 'string':
        return quoteJSON(x, escapeHTML)
      case 'boolean':
        return x ? 'true' : 'false'
      case 'number':
      case 'bigint':
        return numberText(x)
    }
    if (isNumber(x)) return numberText(x)
    const inner = indent !== undefined ? depth + indent : ''
    if (Array.isArray(x) || x instanceof SetValue) {
      const items: readonly Value[] = Array.isArray(x) ? x : (x as SetValue).values()
      if (items.length === 0) return '[]'
      const parts = items.map((item) => nl + inner + walk(item, inner))
      return `[${parts.join(',')}${nl}${depth}]`
    }
    const entries = (x as ObjectValue).entries()
    if (entries.length === 0) return '{}'
    const parts = entries.map(
      ([k, val]) => `${nl}${inner}${quoteJSON(jsonKey(k), escapeHTML)}${colon}${walk(val, inner)}`,
    )
    return `{${parts.join(',')}${nl}${depth}}`
  }
  return walk(v, '')
}
