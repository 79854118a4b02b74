/**
 * Argument checks shared by the built-ins. Each helper takes the argument's 1-based position and
 * throws an {@link OperandError} with OPA's wording (`operand 1 must be string but got number`),
 * which the registry maps to `eval_type_error`.
 */
import type { ArrayValue, ObjectValue, RegoNumber, SetValue, Value } from '../values/index.js'
import {
  canonicalNumber,
  isArray,
  isInteger,
  isNumberValue,
  isObject,
  isSet,
  toBigInt,
  typeName,
} from '../values/index.js'
import { OperandError } from './errors.js'

/** `operand N must be X but got Y` / `operand N must be one of {X, Y} but got Z`. */
export function operandTypeError(position: number, got: Value, ...expected: string[]): OperandError {
  const want = expected.length === 1 ? expected[0] : `one of {${expected.join(', ')}}`
  return new OperandError(position, `must be ${want} but got ${typeName(got)}`)
}

/** `operand N must be array of strings but got array containing number` (OPA's element error). */
export function operandElementError(
  position: number,
  composite: Value,
  got: Value,
  ...expected: string[]
): OperandError {
  const kind = typeName(composite)
  const want = expected.length === 1 ? `${expected[0]}s` : `(any of) {${expected.join(', ')}}`
  return new OperandError(position, `must be ${kind} of ${want} but got ${kind} containing ${typeName(got)}`)
}

/** A string argument. */
export function stringOperand(v: Value, position: number): string {
  if (typeof v !== 'string') throw operandTypeError(position, v, 'string')
  return v
}

/** A number argument. */
export function numberOperand(v: Value, position: number): RegoNumber {
  if (!isNumberValue(v)) throw operandTypeError(position, v, 'number')
  // Built-ins see `1.0` as the integer 1 (OPA reads integral text as an int); only sprintf
  // looks at the float form.
  return canonicalNumber(v)
}

/** A boolean argument. */
export function booleanOperand(v: Value, position: number): boolean {
  if (typeof v !== 'boolean') throw operandTypeError(position, v, 'boolean')
  return v
}

/** An integer argument as a JS number (OPA's `IntOperand`: big integers are refused too). */
export function intOperand(v: Value, position: number): number {
  const n = numberOperand(v, position)
  if (typeof n !== 'number' || !Number.isInteger(n)) {
    throw new OperandError(position, 'must be integer number but got floating-point number')
  }
  return n
}

/** An integer argument of any size. */
export function bigIntOperand(v: Value, position: number): bigint {
  if (!isNumberValue(v)) throw operandTypeError(position, v, 'integer')
  const b = toBigInt(v)
  if (b === undefined)
    throw new OperandError(position, 'must be integer number but got floating-point number')
  return b
}

/** An array argument. */
export function arrayOperand(v: Value, position: number): ArrayValue {
  if (!isArray(v)) throw operandTypeError(position, v, 'array')
  return v
}

/** An object argument. */
export function objectOperand(v: Value, position: number): ObjectValue {
  if (!isObject(v)) throw operandTypeError(position, v, 'object')
  return v
}

/** A set argument. */
export function setOperand(v: Value, position: number): SetValue {
  if (!isSet(v)) throw operandTypeError(position, v, 'set')
  return v
}

/** The elements of an array or set argument (sets in sorted order). */
export function collectionOperand(v: Value, position: number): readonly Value[] {
  if (isArray(v)) return v
  if (isSet(v)) return v.values()
  throw operandTypeError(position, v, 'array', 'set')
}

/** An array or set of strings (OPA's `StringSliceOperand`). */
export function stringListOperand(v: Value, position: number): string[] {
  const items = collectionOperand(v, position)
  return items.map((x) => {
    if (typeof x !== 'string') throw operandElementError(position, v, x, 'string')
    return x
  })
}

/** True when a number is an integer (any size). */
export function isIntegral(v: Value): boolean {
  return isNumberValue(v) && isInteger(v)
}
