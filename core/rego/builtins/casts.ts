/** Conversions: to_number, and the deprecated cast_* built-ins. */
import { t } from '../types/index.js'
import type { Value } from '../values/index.js'
import {
  isArray,
  isNumberValue,
  isObject,
  isSet,
  parseNumber,
  toDouble,
  Value as V,
} from '../values/index.js'
import { defineBuiltin } from './define.js'
import { BuiltinError } from './errors.js'
import { operandTypeError } from './operands.js'

// Go's strconv.ParseFloat decimal syntax: sign, digits with optional point, optional exponent.
const GO_FLOAT = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/

/** Parses a number string as OPA's to_number accepts it; throws with Go's strconv messages. */
export function parseNumberString(s: string): Value {
  const special = s.replace(/^[+-]+/, '').toLowerCase()
  if (special === 'inf' || special === 'infinity' || special === 'nan')
    throw operandTypeError(1, s, 'valid number string')
  const m = GO_FLOAT.exec(s)
  const [, sign = '', int = '', frac, exp] = m ?? []
  if (!m || (int === '' && (frac === undefined || frac === ''))) {
    throw new BuiltinError(`strconv.ParseFloat: parsing ${JSON.stringify(s)}: invalid syntax`)
  }
  const text = `${sign === '-' ? '-' : ''}${int || '0'}${frac ? `.${frac}` : ''}${exp === undefined ? '' : `e${exp}`}`
  const n = parseNumber(text)
  if (n === undefined || !Number.isFinite(toDouble(n))) {
    throw new BuiltinError(`strconv.ParseFloat: parsing ${JSON.stringify(s)}: value out of range`)
  }
  return n
}

export const toNumber = defineBuiltin({
  name: 'to_number',
  category: 'conversions',
  description:
    'Converts a string, bool, or number value to a number: Strings are converted to numbers using `strconv.Atoi`, Boolean `false` is converted to 0 and `true` is converted to 1.',
  args: [t.named('x', t.anyOf(t.null, t.boolean, t.number, t.string), 'value to convert')],
  result: t.named('num', t.number, 'the numeric representation of `x`'),
  impl: (_ctx, [x]) => {
    if (x === null) return 0
    if (typeof x === 'boolean') return x ? 1 : 0
    if (isNumberValue(x)) return x
    if (typeof x === 'string') return parseNumberString(x)
    throw operandTypeError(1, x, 'null', 'boolean', 'number', 'string')
  },
})

function cast(name: string, result: Parameters<typeof t.named>[1], convert: (x: Value) => Value) {
  return defineBuiltin({
    name,
    category: 'conversions',
    description: `Converts the input to a ${name.slice(5)} (deprecated).`,
    args: [t.named('x', t.any)],
    result: t.named('y', result),
    deprecated: true,
    impl: (_ctx, [x]) => convert(x),
  })
}

export const castArray = cast('cast_array', t.array(t.any), (x) => {
  if (isArray(x)) return x
  if (isSet(x)) return [...x.values()]
  throw operandTypeError(1, x, 'array', 'set')
})
export const castSet = cast('cast_set', t.set(t.any), (x) => {
  if (isArray(x)) return V.set(x)
  if (isSet(x)) return x
  throw operandTypeError(1, x, 'array', 'set')
})
export const castString = cast('cast_string', t.string, (x) => {
  if (typeof x !== 'string') throw operandTypeError(1, x, 'string')
  return x
})
export const castBoolean = cast('cast_boolean', t.boolean, (x) => {
  if (typeof x !== 'boolean') throw operandTypeError(1, x, 'boolean')
  return x
})
export const castNull = cast('cast_null', t.null, (x) => {
  if (x !== null) throw operandTypeError(1, x, 'null')
  return x
})
export const castObject = cast('cast_object', t.object(t.any, t.any), (x) => {
  if (!isObject(x)) throw operandTypeError(1, x, 'object')
  return x
})

/** The conversion built-ins. */
export const CASTS = [toNumber, castArray, castSet, castString, castBoolean, castNull, castObject] as const
