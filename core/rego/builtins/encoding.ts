/**
 * Encodings: base64, base64url, hex, JSON and YAML text, URL query strings. Decoders are as strict
 * as Go's (padding, alphabet) and fail with Go's messages where OPA's tests look at them.
 */
import { readYaml, YamlError } from '../../yaml.js'
import { t } from '../types/index.js'
import type { Value } from '../values/index.js'
import { fromJS, isArray, isSet, ObjectValue, parseJSON, toJSONText } from '../values/index.js'
import { defineBuiltin } from './define.js'
import { BuiltinError, OperandError } from './errors.js'
import { decodeGoBase64 } from './go-base64.js'
import { goJSONDecodeError } from './go-json-error.js'
import { goYamlMarshal } from './go-yaml.js'
import { goYamlError } from './go-yaml-error.js'
import { objectOperand, stringOperand } from './operands.js'

const str = (name: string, description: string) => t.named(name, t.string, description)

/** Strict base64 decoding (Go's `StdEncoding`/`URLEncoding`, or the raw forms when `padded` is false). */
export function decodeBase64(s: string, url: boolean, padded: boolean): Buffer {
  return decodeGoBase64(s, url, padded)
}

export const base64Encode = defineBuiltin({
  name: 'base64.encode',
  category: 'encoding',
  description: 'Serializes the input string into base64 encoding.',
  args: [str('x', 'string to encode')],
  result: str('y', 'base64 serialization of `x`'),
  impl: (_ctx, [x]) => Buffer.from(stringOperand(x, 1), 'utf8').toString('base64'),
})

export const base64Decode = defineBuiltin({
  name: 'base64.decode',
  category: 'encoding',
  description: 'Deserializes the base64 encoded input string.',
  args: [str('x', 'string to decode')],
  result: str('y', 'base64 deserialization of `x`'),
  impl: (_ctx, [x]) => decodeBase64(stringOperand(x, 1), false, true).toString('utf8'),
})

export const base64IsValid = defineBuiltin({
  name: 'base64.is_valid',
  category: 'encoding',
  description: 'Verifies the input string is base64 encoded.',
  args: [str('x', 'string to check')],
  result: t.named('result', t.boolean, '`true` if `x` is valid base64 encoded value, `false` otherwise'),
  impl: (_ctx, [x]) => {
    try {
      decodeBase64(stringOperand(x, 1), false, true)
      return true
    } catch (err) {
      if (err instanceof BuiltinError) return false
      throw err
    }
  },
})

export const base64urlEncode = defineBuiltin({
  name: 'base64url.encode',
  category: 'encoding',
  description: 'Serializes the input string into base64url encoding.',
  args: [str('x', 'string to encode')],
  result: str('y', 'base64url serialization of `x`'),
  impl: (_ctx, [x]) => {
    const raw = Buffer.from(stringOperand(x, 1), 'utf8').toString('base64url')
    return raw + '='.repeat((4 - (raw.length % 4)) % 4)
  },
})

export const base64urlEncodeNoPad = defineBuiltin({
  name: 'base64url.encode_no_pad',
  category: 'encoding',
  description: 'Serializes the input string into base64url encoding without padding.',
  args: [str('x', 'string to encode')],
  result: str('y', 'base64url serialization of `x`'),
  impl: (_ctx, [x]) => Buffer.from(stringOperand(x, 1), 'utf8').toString('base64url'),
})

/**
 * OPA's builtinBase64UrlDecode, which io.jwt.* also use for a token's parts: unpadded input is
 * padded as RFC 7515 Appendix C says, then decoded padded.
 */
export function decodeBase64Url(text: string): Buffer {
  let s = text
  if (!s.endsWith('=')) {
    if (s.length % 4 === 1) throw new BuiltinError(`illegal base64url string: ${s}`)
    s += '='.repeat((4 - (s.length % 4)) % 4)
  }
  return decodeBase64(s, true, true)
}

export const base64urlDecode = defineBuiltin({
  name: 'base64url.decode',
  category: 'encoding',
  description: 'Deserializes the base64url encoded input string.',
  args: [str('x', 'string to decode')],
  result: str('y', 'base64url deserialization of `x`'),
  impl: (_ctx, [x]) => decodeBase64Url(stringOperand(x, 1)).toString('utf8'),
})

export const hexEncode = defineBuiltin({
  name: 'hex.encode',
  category: 'encoding',
  description: 'Serializes the input string using hex-encoding.',
  args: [str('x', 'string to encode')],
  result: str('y', 'serialization of `x` using hex-encoding'),
  impl: (_ctx, [x]) => Buffer.from(stringOperand(x, 1), 'utf8').toString('hex'),
})

export const hexDecode = defineBuiltin({
  name: 'hex.decode',
  category: 'encoding',
  description: 'Deserializes the hex-encoded input string.',
  args: [str('x', 'a hex-encoded string')],
  result: str('y', 'deserialized from `x`'),
  impl: (_ctx, [x]) => {
    const s = stringOperand(x, 1)
    const bad = /[^0-9a-fA-F]/.exec(s)
    if (bad) {
      const c = bad[0].codePointAt(0) as number
      throw new BuiltinError(
        `encoding/hex: invalid byte: U+${c.toString(16).toUpperCase().padStart(4, '0')} ${JSON.stringify(bad[0]).replace(/^"|"$/g, "'")}`,
      )
    }
    if (s.length % 2 !== 0) throw new BuiltinError('encoding/hex: odd length hex string')
    return Buffer.from(s, 'hex').toString('utf8')
  },
})

export const jsonMarshal = defineBuiltin({
  name: 'json.marshal',
  category: 'encoding',
  description: 'Serializes the input term to JSON.',
  args: [t.named('x', t.any, 'the term to serialize')],
  result: str('y', 'the JSON string representation of `x`'),
  impl: (_ctx, [x]) => toJSONText(x, { escapeHTML: true }),
})

/** A Go-like message for a JSON syntax error. */
function jsonError(err: unknown): BuiltinError {
  const m = err instanceof Error ? err.message : String(err)
  return new BuiltinError(
    m.replace(/^Unexpected token/, 'invalid character').replace(/ in JSON at position.*$/, ''),
  )
}

export const jsonUnmarshal = defineBuiltin({
  name: 'json.unmarshal',
  category: 'encoding',
  description: 'Deserializes the input string.',
  args: [str('x', 'a JSON string')],
  result: t.named('y', t.any, 'the term deserialized from `x`'),
  impl: (_ctx, [x]) => {
    const text = stringOperand(x, 1)
    try {
      return parseJSON(text)
    } catch (err) {
      // Go's Decoder message where Go also refuses the text; otherwise (too deep for regent) ours.
      const goMessage = goJSONDecodeError(text)
      throw goMessage === undefined ? jsonError(err) : new BuiltinError(goMessage)
    }
  },
})

export const jsonIsValid = defineBuiltin({
  name: 'json.is_valid',
  category: 'encoding',
  description: 'Verifies the input string is a valid JSON document.',
  args: [str('x', 'a JSON string')],
  result: t.named('result', t.boolean, '`true` if `x` is valid JSON, `false` otherwise'),
  impl: (_ctx, [x]) => {
    if (typeof x !== 'string') return false
    try {
      JSON.parse(x)
      return true
    } catch {
      return false
    }
  },
})

/** Converts a parsed YAML node tree to a value (map keys become strings, as in JSON). */
function yamlToValue(x: unknown): Value {
  if (typeof x === 'number' && !Number.isFinite(x))
    throw new BuiltinError('yaml: cannot represent NaN or Inf in JSON')
  if (x instanceof Map) {
    const obj = new ObjectValue()
    for (const [k, v] of x) obj.set(typeof k === 'string' ? k : String(k), yamlToValue(v))
    return obj
  }
  if (Array.isArray(x)) return x.map(yamlToValue)
  if (x instanceof Date) return x.toISOString()
  if (x instanceof Uint8Array) return Buffer.from(x).toString('base64')
  if (x instanceof Set) return [...x].map(yamlToValue)
  if (x === undefined) return null
  return fromJS(x)
}

/** Parses YAML text to a value; throws BuiltinError with Go's message shape. */
export function parseYamlValue(text: string): Value {
  let parsed: unknown
  try {
    // Big integers exact and YAML 1.1 scalars (yes/no/on/off), as Go's yaml.v2 reads them; the
    // default node bound, since the text may come from a request's input. A repeated key keeps
    // its last value: go-yaml v2 decodes without its strict mode, which alone refuses repeats.
    // A timestamp stays the text it was (`2001-12-14`): yaml.v2 decodes one into interface{} as
    // its string, and OPA's YAMLToJSON (sigs.k8s.io/yaml) decodes into interface{}.
    parsed = readYaml(text, {
      version: '1.1',
      intAsBigInt: true,
      mapAsMap: true,
      lastKeyWins: true,
      timestampsAsStrings: true,
    })
  } catch (err) {
    if (err instanceof YamlError) throw goYamlError(err, text)
    throw err
  }
  return yamlToValue(parsed)
}

export const yamlMarshal = defineBuiltin({
  name: 'yaml.marshal',
  category: 'encoding',
  description: 'Serializes the input term to YAML.',
  args: [t.named('x', t.any, 'the term to serialize')],
  result: str('y', 'the YAML string representation of `x`'),
  impl: (_ctx, [x]) => goYamlMarshal(x),
})

export const yamlUnmarshal = defineBuiltin({
  name: 'yaml.unmarshal',
  category: 'encoding',
  description: 'Deserializes the input string.',
  args: [str('x', 'a YAML string')],
  result: t.named('y', t.any, 'the term deserialized from `x`'),
  impl: (_ctx, [x]) => parseYamlValue(stringOperand(x, 1)),
})

export const yamlIsValid = defineBuiltin({
  name: 'yaml.is_valid',
  category: 'encoding',
  description: 'Verifies the input string is a valid YAML document.',
  args: [str('x', 'a YAML string')],
  result: t.named('result', t.boolean, '`true` if `x` is valid YAML, `false` otherwise'),
  impl: (_ctx, [x]) => {
    if (typeof x !== 'string') return false
    try {
      parseYamlValue(x)
      return true
    } catch {
      return false
    }
  },
})

const UNRESERVED = /[A-Za-z0-9\-_.~]/

/** Go's url.QueryEscape: spaces become `+`, everything but unreserved characters is %-escaped. */
export function queryEscape(s: string): string {
  let out = ''
  for (const byte of Buffer.from(s, 'utf8')) {
    const c = String.fromCharCode(byte)
    if (UNRESERVED.test(c)) out += c
    else if (c === ' ') out += '+'
    else out += `%${byte.toString(16).toUpperCase().padStart(2, '0')}`
  }
  return out
}

/** Go's url.QueryUnescape. */
export function queryUnescape(s: string): string {
  const bytes: number[] = []
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string
    if (c === '%') {
      const hex = s.slice(i + 1, i + 3)
      if (!/^[0-9a-fA-F]{2}$/.test(hex))
        throw new BuiltinError(`invalid URL escape ${JSON.stringify(s.slice(i, i + 3))}`)
      bytes.push(Number.parseInt(hex, 16))
      i += 2
    } else if (c === '+') {
      bytes.push(0x20)
    } else {
      bytes.push(...Buffer.from(c, 'utf8'))
    }
  }
  return Buffer.from(bytes).toString('utf8')
}

export const urlqueryEncode = defineBuiltin({
  name: 'urlquery.encode',
  category: 'encoding',
  description: 'Encodes the input string into a URL-encoded string.',
  args: [str('x', 'the string to encode')],
  result: str('y', 'URL-encoding serialization of `x`'),
  impl: (_ctx, [x]) => queryEscape(stringOperand(x, 1)),
})

export const urlqueryDecode = defineBuiltin({
  name: 'urlquery.decode',
  category: 'encoding',
  description: 'Decodes a URL-encoded input string.',
  args: [str('x', 'the URL-encoded string')],
  result: str('y', 'URL-encoding deserialization of `x`'),
  impl: (_ctx, [x]) => queryUnescape(stringOperand(x, 1)),
})

export const urlqueryEncodeObject = defineBuiltin({
  name: 'urlquery.encode_object',
  category: 'encoding',
  description: 'Encodes the given object into a URL encoded query string.',
  args: [
    t.named(
      'object',
      t.object(t.string, t.anyOf(t.string, t.array(t.string), t.set(t.string))),
      'the object to encode',
    ),
  ],
  result: str('y', 'the URL-encoded serialization of `object`'),
  impl: (_ctx, [o]) => {
    const obj = objectOperand(o, 1)
    const parts: string[] = []
    for (const [k, v] of obj.entries()) {
      if (typeof k !== 'string') throw new OperandError(1, 'must be object with string keys')
      const values = typeof v === 'string' ? [v] : isArray(v) ? v : isSet(v) ? v.values() : undefined
      if (values === undefined)
        throw new OperandError(1, 'values must be string, array[string], or set[string]')
      for (const x of values) {
        // OPA's one message for any value that is not a string or a collection of strings.
        if (typeof x !== 'string')
          throw new OperandError(1, 'values must be string, array[string], or set[string]')
        parts.push(`${queryEscape(k)}=${queryEscape(x)}`)
      }
    }
    return parts.join('&')
  },
})

export const urlqueryDecodeObject = defineBuiltin({
  name: 'urlquery.decode_object',
  category: 'encoding',
  description: 'Decodes the given URL query string into an object.',
  args: [str('x', 'the query string')],
  result: t.named('object', t.object(t.string, t.array(t.string)), 'the resulting object'),
  impl: (_ctx, [x]) => {
    const s = stringOperand(x, 1)
    const grouped = new Map<string, string[]>()
    for (const part of s.split('&')) {
      if (part === '') continue
      if (part.includes(';')) throw new BuiltinError('invalid semicolon separator in query')
      const eq = part.indexOf('=')
      const key = queryUnescape(eq < 0 ? part : part.slice(0, eq))
      const value = eq < 0 ? '' : queryUnescape(part.slice(eq + 1))
      const list = grouped.get(key) ?? []
      list.push(value)
      grouped.set(key, list)
    }
    return ObjectValue.from([...grouped].map(([k, vs]) => [k, vs] as const))
  },
})

/** The encoding built-ins. */
export const ENCODING = [
  base64Encode,
  base64Decode,
  base64IsValid,
  base64urlEncode,
  base64urlEncodeNoPad,
  base64urlDecode,
  hexEncode,
  hexDecode,
  jsonMarshal,
  jsonUnmarshal,
  jsonIsValid,
  yamlMarshal,
  yamlUnmarshal,
  yamlIsValid,
  urlqueryEncode,
  urlqueryDecode,
  urlqueryEncodeObject,
  urlqueryDecodeObject,
] as const
