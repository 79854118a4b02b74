/** The Rego type lattice: type shapes and builders, relations, and OPA's JSON and text forms. */
export { type TypeJSON, typeFromJSON, typeToJSON, typeToString } from './json.js'
export {
  elementType,
  isSubtype,
  keysOf,
  overlaps,
  propertyType,
  selectType,
  valuesOf,
} from './lattice.js'
export { typeFromJsonSchema } from './schema.js'
export { SchemaSet } from './schema-set.js'
export {
  type AnyType,
  type ArrayType,
  compareTypes,
  type FunctionType,
  type NamedType,
  type ObjectType,
  type ScalarType,
  type SetType,
  type StaticProperty,
  type Type,
  t,
  typeOf,
  unionOf,
  unwrap,
} from './types.js'
