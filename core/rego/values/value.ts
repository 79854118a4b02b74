/**
 * The Rego value model. Values are plain JS data where JS has a fitting type, so that the
 * evaluator and the built-ins stay fast and readable:
 *
 * | Rego    | JS                                                  |
 * |---------|-----------------------------------------------------|
 * | null    | `null`                                              |
 * | boolean | `boolean`                                           |
 * | number  | `number`, `bigint` or {@link Decimal} (number.ts)   |
 * | string  | `string`                                            |
 * | array   | `readonly Value[]`                                  |
 * | object  | {@link ObjectValue} (any value as key)              |
 * | set     | {@link SetValue}                                    |
 *
 * Values are immutable once shared: `ObjectValue.set` and `SetValue.add` are for building.
 */
import { Decimal } from './decimal.js'
import type { RegoNumber } from './number.js'
import { numberFromBigInt, numberFromDouble, parseNumber } from './number.js'
import { ObjectValue } from './object.js'
import { SetValue } from './set.js'

/** Any Rego value. */
export type Value = null | boolean | RegoNumber | string | ArrayValue | ObjectValue | SetValue

/** A Rego array. */
export type ArrayValue = readonly Value[]

/** Scalar values (OPA's `ast.Scalar` kinds). */
export type ScalarValue = null | boolean | RegoNumber | string

/** OPA's type names (`ast.ValueName`), as used in error messages and `type_name`. */
export type TypeName = 'null' | 'boolean' | 'number' | 'string' | 'array' | 'object' | 'set'

/** The OPA type name of a value. */
export function typeName(v: Value): TypeName {
  switch (typeof v) {
    case 'string':
      return 'string'
    case 'number':
    case 'bigint':
      return 'number'
    case 'boolean':
      return 'boolean'
    default:
      if (v === null) return 'null'
      if (Array.isArray(v)) return 'array'
      return (v as Decimal | ObjectValue | SetValue).tag === 'decimal'
        ? 'number'
        : ((v as ObjectValue | SetValue).tag as 'object' | 'set')
  }
}

/** True for arrays. */
export function isArray(v: Value | undefined): v is ArrayValue {
  return Array.isArray(v)
}

/** True for objects. */
export function isObject(v: Value | undefined): v is ObjectValue {
  return v instanceof ObjectValue
}

/** True for sets. */
export function isSet(v: Value | undefined): v is SetValue {
  return v instanceof SetValue
}

/** True for numbers of any representation. */
export function isNumberValue(v: Value | undefined): v is RegoNumber {
  return typeof v === 'number' || typeof v === 'bigint' || v instanceof Decimal
}

/** True for null, booleans, numbers and strings. */
export function isScalar(v: Value): v is ScalarValue {
  return v === null || typeof v !== 'object' || v instanceof Decimal
}

/**
 * Constructors, so call sites read as `Value.array([...])`, `Value.set(xs)`.
 *
 * @example
 * Value.object([['a', 1]]) // {"a": 1}
 */
export const Value = {
  /** A number from a JS number, bigint or a number lexeme (exact). */
  number(n: number | bigint | string): RegoNumber {
    if (typeof n === 'number') return numberFromDouble(n)
    if (typeof n === 'bigint') return numberFromBigInt(n)
    const parsed = parseNumber(n)
    if (parsed === undefined) throw new SyntaxError(`invalid number: ${JSON.stringify(n)}`)
    return parsed
  },
  /** An array (the items are not copied). */
  array(items: readonly Value[]): ArrayValue {
    return items
  },
  /** An object from key/value pairs; later pairs win. */
  object(entries: Iterable<readonly [Value, Value]> = []): ObjectValue {
    return ObjectValue.from(entries)
  },
  /** An object with string keys. */
  record(record: Readonly<Record<string, Value>>): ObjectValue {
    return ObjectValue.fromRecord(record)
  },
  /** A set from elements (duplicates collapse). */
  set(items: Iterable<Value> = []): SetValue {
    return SetValue.from(items)
  },
} as const
