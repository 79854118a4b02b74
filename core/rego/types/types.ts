/**
 * The type lattice of Rego, as OPA's `types` package defines it: used by built-in declarations
 * (args and results), by `regent capabilities` (OPA's `decl` JSON) and by the type checker.
 *
 * Types are plain immutable objects with a `kind` discriminant; build them with {@link t}.
 */
import type { Value } from '../values/index.js'
import { compareValues, isArray, isObject, isSet, typeName } from '../values/index.js'

/** Top, or a union when `of` is non-empty (OPA's `any<a, b>`). */
export interface AnyType {
  readonly kind: 'any'
  readonly of: readonly Type[]
}

/** A scalar type. */
export interface ScalarType {
  readonly kind: 'null' | 'boolean' | 'number' | 'string'
}

/** An array: `static` element types by position, then `dynamic` for the rest. */
export interface ArrayType {
  readonly kind: 'array'
  readonly static: readonly Type[]
  readonly dynamic?: Type
}

/** A static object property. */
export interface StaticProperty {
  readonly key: Value
  readonly value: Type
}

/** An object: known keys in `static` (sorted by key), any other keys in `dynamic`. */
export interface ObjectType {
  readonly kind: 'object'
  readonly static: readonly StaticProperty[]
  readonly dynamic?: { readonly key: Type; readonly value: Type }
}

/** A set of `of`. */
export interface SetType {
  readonly kind: 'set'
  readonly of: Type
}

/** A function: positional `args`, optional `variadic` rest and `result` (none for `print`). */
export interface FunctionType {
  readonly kind: 'function'
  readonly args: readonly Type[]
  readonly result?: Type
  readonly variadic?: Type
}

/** A type with a name and description, as built-in declarations name their arguments. */
export interface NamedType {
  readonly kind: 'named'
  readonly name: string
  readonly description?: string
  readonly type: Type
}

/** Any type. */
export type Type = AnyType | ScalarType | ArrayType | ObjectType | SetType | FunctionType | NamedType

const ANY: AnyType = { kind: 'any', of: [] }
const NULL: ScalarType = { kind: 'null' }
const BOOLEAN: ScalarType = { kind: 'boolean' }
const NUMBER: ScalarType = { kind: 'number' }
const STRING: ScalarType = { kind: 'string' }

/**
 * Type builders, named as OPA's `types` constructors read.
 *
 * @example
 * t.named('x', t.array(t.any), 'the array') // x: array[any]
 * t.anyOf(t.string, t.set(t.string))       // any<string, set[string]>
 */
export const t = {
  any: ANY as AnyType,
  null: NULL,
  boolean: BOOLEAN,
  number: NUMBER,
  string: STRING,
  /** A union (`any<...>`); members are kept in the given order, as OPA prints them. */
  anyOf(...of: Type[]): AnyType {
    return { kind: 'any', of }
  },
  /** `array[of]`. */
  array(of: Type): ArrayType {
    return { kind: 'array', static: [], dynamic: of }
  },
  /** `array<a, b>`: a fixed-length array (a tuple). */
  tuple(...items: Type[]): ArrayType {
    return { kind: 'array', static: items }
  },
  /** `object[key: value]`. */
  object(key: Type, value: Type): ObjectType {
    return { kind: 'object', static: [], dynamic: { key, value } }
  },
  /** `object<k: v, ...>` with an optional dynamic part. */
  record(props: Readonly<Record<string, Type>>, dynamic?: { key: Type; value: Type }): ObjectType {
    const keys = Object.keys(props).sort()
    const statics = keys.map((key) => ({ key, value: props[key] as Type }))
    return dynamic ? { kind: 'object', static: statics, dynamic } : { kind: 'object', static: statics }
  },
  /** `set[of]`. */
  set(of: Type): SetType {
    return { kind: 'set', of }
  },
  /** A function type. */
  fn(args: readonly Type[], result?: Type, variadic?: Type): FunctionType {
    const f: { kind: 'function'; args: readonly Type[]; result?: Type; variadic?: Type } = {
      kind: 'function',
      args,
    }
    if (result) f.result = result
    if (variadic) f.variadic = variadic
    return f
  },
  /** A named (and optionally described) type, for declarations. */
  named(name: string, type: Type, description?: string): NamedType {
    return description === undefined
      ? { kind: 'named', name, type }
      : { kind: 'named', name, description, type }
  },
} as const

/** The type without its name(s). */
export function unwrap(type: Type): Exclude<Type, NamedType> {
  let x = type
  while (x.kind === 'named') x = x.type
  return x
}

/**
 * The most precise type of a value (OPA's `types.TypeOf`): arrays and objects get static types,
 * sets the union of their element types.
 */
export function typeOf(v: Value): Type {
  if (isArray(v)) return { kind: 'array', static: v.map(typeOf) }
  if (isObject(v))
    return { kind: 'object', static: v.entries().map(([key, value]) => ({ key, value: typeOf(value) })) }
  if (isSet(v)) {
    const members: Type[] = []
    for (const x of v.values()) members.push(typeOf(x))
    return { kind: 'set', of: members.length === 0 ? ANY : unionOf(...members) }
  }
  switch (typeName(v)) {
    case 'null':
      return NULL
    case 'boolean':
      return BOOLEAN
    case 'number':
      return NUMBER
    default:
      return STRING
  }
}

/** The union of types, flattened and without duplicates; a single member stands alone. */
export function unionOf(...types: Type[]): Type {
  const members: Type[] = []
  const push = (x: Type) => {
    const u = unwrap(x)
    if (u.kind === 'any') {
      if (u.of.length === 0) {
        members.length = 0
        members.push(ANY)
        return
      }
      for (const m of u.of) push(m)
      return
    }
    if (members.length === 1 && members[0] === ANY) return
    if (!members.some((m) => compareTypes(m, u) === 0)) members.push(u)
  }
  for (const x of types) push(x)
  if (members.length === 1) return members[0] as Type
  if (members.length === 0) return ANY
  return { kind: 'any', of: members }
}

const KIND_ORDER = ['any', 'null', 'boolean', 'number', 'string', 'array', 'object', 'set', 'function']

/** A total order on types (names ignored), for deduplication and sorting. */
export function compareTypes(a: Type, b: Type): number {
  const x = unwrap(a)
  const y = unwrap(b)
  if (x.kind !== y.kind) return KIND_ORDER.indexOf(x.kind) - KIND_ORDER.indexOf(y.kind)
  switch (x.kind) {
    case 'any':
      return compareLists(x.of, (y as AnyType).of)
    case 'array': {
      const yy = y as ArrayType
      return compareLists(x.static, yy.static) || compareOptional(x.dynamic, yy.dynamic)
    }
    case 'object': {
      const yy = y as ObjectType
      const n = Math.min(x.static.length, yy.static.length)
      for (let i = 0; i < n; i++) {
        const p = x.static[i] as StaticProperty
        const q = yy.static[i] as StaticProperty
        const c = compareValues(p.key, q.key) || compareTypes(p.value, q.value)
        if (c !== 0) return c
      }
      if (x.static.length !== yy.static.length) return x.static.length - yy.static.length
      return (
        compareOptional(x.dynamic?.key, yy.dynamic?.key) ||
        compareOptional(x.dynamic?.value, yy.dynamic?.value)
      )
    }
    case 'set':
      return compareTypes(x.of, (y as SetType).of)
    case 'function': {
      const yy = y as FunctionType
      return (
        compareLists(x.args, yy.args) ||
        compareOptional(x.result, yy.result) ||
        compareOptional(x.variadic, yy.variadic)
      )
    }
    default:
      return 0
  }
}

function compareLists(a: readonly Type[], b: readonly Type[]): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const c = compareTypes(a[i] as Type, b[i] as Type)
    if (c !== 0) return c
  }
  return a.length - b.length
}

function compareOptional(a: Type | undefined, b: Type | undefined): number {
  if (a === undefined) return b === undefined ? 0 : -1
  if (b === undefined) return 1
  return compareTypes(a, b)
}
