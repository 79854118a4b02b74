/**
 * The Rego value model: representation, OPA's order and equality, hashing, JSON conversion and
 * Rego-syntax formatting. See value.ts for how each Rego type is represented.
 */
export { compareStrings, compareValues, equalValues, kindRank } from './compare.js'
export { Decimal } from './decimal.js'
export { formatValue } from './format.js'
export { hashString, hashValue } from './hash.js'
export {
  type BigNumberMode,
  fromJS,
  type JSONTextOptions,
  parseJSON,
  quoteJSON,
  toJS,
  toJSONText,
} from './json.js'
export {
  ArithmeticError,
  abs,
  add,
  canonicalNumber,
  ceil,
  compareNumbers,
  divide,
  floor,
  isFloatForm,
  isInteger,
  isNumber,
  isZero,
  multiply,
  negate,
  numberFromBigInt,
  numberFromDouble,
  numberText,
  parseNumber,
  type RegoNumber,
  remainder,
  round,
  subtract,
  toBigInt,
  toDecimal,
  toDouble,
  toSafeInt,
  truncatedFloat,
  truncatedFloatProduct,
  withoutFloatForm,
} from './number.js'
export { type ObjectEntry, ObjectValue } from './object.js'
export { SetValue } from './set.js'
export {
  type ArrayValue,
  isArray,
  isNumberValue,
  isObject,
  isScalar,
  isSet,
  type ScalarValue,
  type TypeName,
  typeName,
  Value,
} from './value.js'
export { ValueMap } from './value-map.js'
