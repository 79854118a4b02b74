/**
 * JSON Schema (draft 4 to 7 keywords) for json.verify_schema and json.match_schema, reporting
 * errors with gojsonschema's wording and fields (`field`, `type`, `desc`, `error`), as OPA does.
 * `format` is checked as gojsonschema checks it except for emails and URIs (json-schema-formats.ts).
 * Not covered: remote `$ref`s (only `#...` pointers into the same schema).
 */
import { t } from '../types/index.js'
import type { ObjectValue, Value } from '../values/index.js'
import {
  compareNumbers,
  equalValues,
  formatValue,
  isArray,
  isInteger,
  isNumberValue,
  isObject,
  ObjectValue as Obj,
  parseJSON,
  toDecimal,
  toJSONText,
} from '../values/index.js'
import { defineBuiltin } from './define.js'
import { BuiltinError } from './errors.js'
import { matchesFormat } from './json-schema-formats.js'
import { compileRegex } from './regex-cache.js'
import { runes } from './strings.js'

const PRIMITIVES = ['array', 'boolean', 'integer', 'number', 'null', 'object', 'string']

/** One validation error, as gojsonschema's ResultError. */
interface SchemaError {
  field: string
  type: string
  desc: string
}

/**
 * The field of an error: the dotted path, or `(Root)` at the document's root. OPA's copy of
 * gojsonschema (internal/gojsonschema, StringContextRoot) capitalizes it, unlike upstream
 * gojsonschema's `(root)`: policies tested with `opa test` expect `(Root): ... is required`.
 */
function fieldName(path: string[]): string {
  return path.length === 0 ? '(Root)' : path.join('.')
}

function jsonType(v: Value): string {
  if (v === null) return 'null'
  if (typeof v === 'boolean') return 'boolean'
  if (typeof v === 'string') return 'string'
  if (isNumberValue(v)) return isInteger(v) ? 'integer' : 'number'
  if (isArray(v)) return 'array'
  return 'object'
}

/**
 * Checks a whole schema document. gojsonschema detects the draft (parseSchemaURL) before it
 * parses, and that refuses a root that is neither an object nor a boolean: an array schema (which
 * OPA loads since it accepts array operands) or JSON text of a number is "schema is invalid".
 */
function checkRootSchema(schema: Value): void {
  if (typeof schema !== 'boolean' && !isObject(schema)) throw new BuiltinError('schema is invalid')
  checkSchema(schema)
}

/** Checks that a schema is well-formed; throws a BuiltinError with gojsonschema's message. */
function checkSchema(schema: Value): void {
  if (typeof schema === 'boolean') return
  if (!isObject(schema)) throw new BuiltinError('schema must be an object')
  const type = schema.get('type')
  if (type !== undefined) {
    const types = isArray(type) ? type : [type]
    for (const x of types) {
      if (typeof x !== 'string' || !PRIMITIVES.includes(x)) {
        throw new BuiltinError(
          `has a primitive type that is NOT VALID -- given: /${typeof x === 'string' ? x : formatValue(x)}/ Expected valid values are:[${PRIMITIVES.join(' ')}]`,
        )
      }
    }
  }
  const required = schema.get('required')
  if (required !== undefined && (!isArray(required) || required.some((r) => typeof r !== 'string'))) {
    throw new BuiltinError('required must be an array of strings')
  }
  for (const key of ['minLength', 'maxLength', 'minItems', 'maxItems', 'minProperties', 'maxProperties']) {
    const v = schema.get(key)
    if (v !== undefined && !(isNumberValue(v) && isInteger(v) && compareNumbers(v, 0) >= 0)) {
      throw new BuiltinError(`${key} must be a non-negative integer`)
    }
  }
  const pattern = schema.get('pattern')
  if (pattern !== undefined) {
    if (typeof pattern !== 'string') throw new BuiltinError('pattern must be a string')
    compileRegex(pattern)
  }
  for (const key of ['properties', 'patternProperties', 'definitions', 'dependencies']) {
    const v = schema.get(key)
    if (v === undefined) continue
    if (!isObject(v)) throw new BuiltinError(`${key} must be an object`)
    for (const [, sub] of v.entries()) if (!isArray(sub)) checkSchema(sub)
  }
  for (const key of [
    'additionalProperties',
    'additionalItems',
    'not',
    'propertyNames',
    'contains',
    'if',
    'then',
    'else',
  ]) {
    const v = schema.get(key)
    if (v !== undefined) checkSchema(v)
  }
  for (const key of ['allOf', 'anyOf', 'oneOf']) {
    const v = schema.get(key)
    if (v === undefined) continue
    if (!isArray(v) || v.length === 0) throw new BuiltinError(`${key} must be a non-empty array`)
    for (const sub of v) checkSchema(sub)
  }
  const items = schema.get('items')
  if (items !== undefined) for (const sub of isArray(items) ? items : [items]) checkSchema(sub)
}

class Validator {
  readonly errors: SchemaError[] = []

  constructor(readonly root: Value) {}

  resolve(ref: string): Value {
    if (!ref.startsWith('#'))
      throw new BuiltinError(`unsupported $ref ${JSON.stringify(ref)}: only local references are resolved`)
    let cur: Value = this.root
    for (const raw of ref
      .slice(1)
      .split('/')
      .filter((p) => p !== '')) {
      const part = decodeURIComponent(raw).replaceAll('~1', '/').replaceAll('~0', '~')
      const next: Value | undefined = isObject(cur)
        ? cur.get(part)
        : isArray(cur)
          ? cur[Number(part)]
          : undefined
      if (next === undefined) throw new BuiltinError(`cannot resolve $ref ${JSON.stringify(ref)}`)
      cur = next
    }
    return cur
  }

  error(path: string[], type: string, desc: string): void {
    this.errors.push({ field: fieldName(path), type, desc })
  }

  /** True when `v` satisfies `schema` (errors recorded unless `quiet`). */
  check(v: Value, schema: Value, path: string[], depth = 0): boolean {
    if (depth > 64) throw new BuiltinError('schema recursion too deep')
    if (schema === true) return true
    if (schema === false) {
      this.error(path, 'false', 'False always fails validation')
      return false
    }
    if (!isObject(schema)) return true
    const before = this.errors.length
    const ref = schema.get('$ref')
    if (typeof ref === 'string') return this.check(v, this.resolve(ref), path, depth + 1)
    this.checkType(v, schema, path)
    this.checkEnum(v, schema, path)
    if (isNumberValue(v)) this.checkNumber(v, schema, path)
    if (typeof v === 'string') this.checkString(v, schema, path)
    if (isArray(v)) this.checkArray(v, schema, path, depth)
    if (isObject(v)) this.checkObject(v, schema, path, depth)
    this.checkCombinators(v, schema, path, depth)
    return this.errors.length === before
  }

  quiet(v: Value, schema: Value, path: string[], depth: number): boolean {
    const sub = new Validator(this.root)
    return sub.check(v, schema, path, depth + 1)
  }

  checkType(v: Value, schema: ObjectValue, path: string[]): void {
    const type = schema.get('type')
    if (type === undefined) return
    const types = (isArray(type) ? type : [type]).filter((x): x is string => typeof x === 'string')
    const actual = jsonType(v)
    if (types.includes(actual) || (actual === 'integer' && types.includes('number'))) return
    this.error(path, 'invalid_type', `Invalid type. Expected: ${types.join(', ')}, given: ${actual}`)
  }

  checkEnum(v: Value, schema: ObjectValue, path: string[]): void {
    const allowed = schema.get('enum')
    if (isArray(allowed) && !allowed.some((x) => equalValues(x, v))) {
      this.error(
        path,
        'enum',
        `${fieldName(path)} must be one of the following: ${allowed.map((x) => toJSONText(x)).join(', ')}`,
      )
    }
    const c = schema.get('const')
    if (c !== undefined && !equalValues(c, v))
      this.error(path, 'const', `${fieldName(path)} does not match: ${toJSONText(c)}`)
  }

  checkNumber(v: Value & {}, schema: ObjectValue, path: string[]): void {
    const n = v as Parameters<typeof compareNumbers>[0]
    const num = (key: string) => {
      const x = schema.get(key)
      return x !== undefined && isNumberValue(x) ? x : undefined
    }
    const text = (x: Value) => toJSONText(x)
    const min = num('minimum')
    const max = num('maximum')
    const exMin = schema.get('exclusiveMinimum')
    const exMax = schema.get('exclusiveMaximum')
    if (min !== undefined) {
      if (exMin === true ? compareNumbers(n, min) <= 0 : compareNumbers(n, min) < 0) {
        this.error(
          path,
          exMin === true ? 'number_gt' : 'number_gte',
          `Must be greater than ${exMin === true ? '' : 'or equal to '}${text(min)}`,
        )
      }
    }
    if (max !== undefined) {
      if (exMax === true ? compareNumbers(n, max) >= 0 : compareNumbers(n, max) > 0) {
        this.error(
          path,
          exMax === true ? 'number_lt' : 'number_lte',
          `Must be less than ${exMax === true ? '' : 'or equal to '}${text(max)}`,
        )
      }
    }
    if (exMin !== undefined && isNumberValue(exMin) && compareNumbers(n, exMin) <= 0)
      this.error(path, 'number_gt', `Must be greater than ${text(exMin)}`)
    if (exMax !== undefined && isNumberValue(exMax) && compareNumbers(n, exMax) >= 0)
      this.error(path, 'number_lt', `Must be less than ${text(exMax)}`)
    const multiple = num('multipleOf')
    if (multiple !== undefined) {
      const a = toDecimal(n)
      const b = toDecimal(multiple)
      const e = Math.min(a.exp, b.exp)
      const x = a.coef * 10n ** BigInt(a.exp - e)
      const y = b.coef * 10n ** BigInt(b.exp - e)
      if (y !== 0n && x % y !== 0n) this.error(path, 'multiple_of', `Must be a multiple of ${text(multiple)}`)
    }
  }

  checkString(v: string, schema: ObjectValue, path: string[]): void {
    const len = runes(v).length
    const minLength = schema.get('minLength')
    const maxLength = schema.get('maxLength')
    if (isNumberValue(minLength) && compareNumbers(len, minLength) < 0) {
      this.error(
        path,
        'string_gte',
        `String length must be greater than or equal to ${toJSONText(minLength)}`,
      )
    }
    if (isNumberValue(maxLength) && compareNumbers(len, maxLength) > 0) {
      this.error(path, 'string_lte', `String length must be less than or equal to ${toJSONText(maxLength)}`)
    }
    const pattern = schema.get('pattern')
    if (typeof pattern === 'string' && !compileRegex(pattern).test(v)) {
      this.error(path, 'pattern', `Does not match pattern '${pattern}'`)
    }
    const format = schema.get('format')
    if (typeof format === 'string' && format !== '' && !matchesFormat(format, v)) {
      this.error(path, 'format', `Does not match format '${format}'`)
    }
  }

  checkArray(v: readonly Value[], schema: ObjectValue, path: string[], depth: number): void {
    const minItems = schema.get('minItems')
    const maxItems = schema.get('maxItems')
    if (isNumberValue(minItems) && compareNumbers(v.length, minItems) < 0) {
      this.error(path, 'array_min_items', `Array must have at least ${toJSONText(minItems)} items`)
    }
    if (isNumberValue(maxItems) && compareNumbers(v.length, maxItems) > 0) {
      this.error(path, 'array_max_items', `Array must have at most ${toJSONText(maxItems)} items`)
    }
    if (schema.get('uniqueItems') === true) {
      for (let i = 0; i < v.length; i++) {
        for (let j = i + 1; j < v.length; j++) {
          if (equalValues(v[i] as Value, v[j] as Value))
            this.error(path, 'unique', `array items[${i},${j}] must be unique`)
        }
      }
    }
    const items = schema.get('items')
    if (isArray(items)) {
      v.forEach((x, i) => {
        if (i < items.length) this.check(x, items[i] as Value, [...path, String(i)], depth + 1)
        else {
          const extra = schema.get('additionalItems')
          if (extra === false)
            this.error(path, 'array_no_additional_items', 'No additional items allowed on array')
          else if (extra !== undefined) this.check(x, extra, [...path, String(i)], depth + 1)
        }
      })
    } else if (items !== undefined) {
      v.forEach((x, i) => {
        this.check(x, items, [...path, String(i)], depth + 1)
      })
    }
    const contains = schema.get('contains')
    if (contains !== undefined && !v.some((x) => this.quiet(x, contains, path, depth))) {
      this.error(path, 'contains', 'At least one of the items must match')
    }
  }

  checkObject(v: ObjectValue, schema: ObjectValue, path: string[], depth: number): void {
    const required = schema.get('required')
    if (isArray(required)) {
      for (const r of required)
        if (typeof r === 'string' && !v.has(r)) this.error(path, 'required', `${r} is required`)
    }
    const minP = schema.get('minProperties')
    const maxP = schema.get('maxProperties')
    if (isNumberValue(minP) && compareNumbers(v.size, minP) < 0)
      this.error(path, 'array_min_properties', `Must have at least ${toJSONText(minP)} properties`)
    if (isNumberValue(maxP) && compareNumbers(v.size, maxP) > 0)
      this.error(path, 'array_max_properties', `Must have at most ${toJSONText(maxP)} properties`)
    const props = schema.get('properties')
    const patterns = schema.get('patternProperties')
    const additional = schema.get('additionalProperties')
    const names = schema.get('propertyNames')
    const deps = schema.get('dependencies')
    for (const [k, x] of v.entries()) {
      const key = typeof k === 'string' ? k : formatValue(k)
      let matched = false
      const sub = isObject(props) ? props.get(k) : undefined
      if (sub !== undefined) {
        matched = true
        this.check(x, sub, [...path, key], depth + 1)
      }
      if (isObject(patterns)) {
        for (const [p, s] of patterns.entries()) {
          if (typeof p === 'string' && compileRegex(p).test(key)) {
            matched = true
            this.check(x, s, [...path, key], depth + 1)
          }
        }
      }
      if (!matched && additional !== undefined) {
        if (additional === false)
          this.error(path, 'additional_property_not_allowed', `Additional property ${key} is not allowed`)
        else this.check(x, additional, [...path, key], depth + 1)
      }
      if (names !== undefined && !this.quiet(key, names, path, depth)) {
        this.error(path, 'invalid_property_name', `Property name of "${key}" does not match`)
      }
      const dep = isObject(deps) ? deps.get(k) : undefined
      if (dep !== undefined) {
        if (isArray(dep)) {
          for (const d of dep)
            if (typeof d === 'string' && !v.has(d))
              this.error(path, 'missing_dependency', `Has a dependency on ${d}`)
        } else this.check(v, dep, path, depth + 1)
      }
    }
  }

  checkCombinators(v: Value, schema: ObjectValue, path: string[], depth: number): void {
    const all = schema.get('allOf')
    if (isArray(all) && !all.every((s) => this.quiet(v, s, path, depth))) {
      for (const s of all) this.check(v, s, path, depth + 1)
      this.error(path, 'number_all_of', 'Must validate all the schemas (allOf)')
    }
    const any = schema.get('anyOf')
    if (isArray(any) && !any.some((s) => this.quiet(v, s, path, depth))) {
      this.error(path, 'number_any_of', 'Must validate at least one schema (anyOf)')
    }
    const one = schema.get('oneOf')
    if (isArray(one) && one.filter((s) => this.quiet(v, s, path, depth)).length !== 1) {
      this.error(path, 'number_one_of', 'Must validate one and only one schema (oneOf)')
    }
    const not = schema.get('not')
    if (not !== undefined && this.quiet(v, not, path, depth))
      this.error(path, 'number_not', 'Must not validate the schema (not)')
    const cond = schema.get('if')
    if (cond !== undefined) {
      const branch = this.quiet(v, cond, path, depth) ? 'then' : 'else'
      const target = schema.get(branch)
      if (target !== undefined && !this.check(v, target, path, depth + 1)) {
        this.error(
          path,
          `condition_${branch}`,
          `Must validate "${branch}" as "if" was ${branch === 'then' ? 'valid' : 'not valid'}`,
        )
      }
    }
  }
}

/**
 * A schema or document operand: JSON text, an object or an array (OPA's
 * astValueToJSONSchemaLoader, with its two plain messages).
 */
function jsonOperand(v: Value): Value {
  if (typeof v === 'string') {
    try {
      return parseJSON(v)
    } catch {
      throw new BuiltinError('invalid JSON string')
    }
  }
  if (isObject(v) || isArray(v)) return v
  throw new BuiltinError('wrong type, expected string or object')
}

const schemaArg = t.anyOf(t.string, t.object(t.any, t.any))

export const VERIFY_SCHEMA = defineBuiltin({
  name: 'json.verify_schema',
  category: 'objects',
  description:
    'Checks that the input is a valid JSON schema object. The schema can be either a JSON string or an JSON object.',
  args: [t.named('schema', schemaArg, 'the schema to verify')],
  result: t.named(
    'output',
    t.tuple(t.boolean, t.anyOf(t.null, t.string)),
    '`output` is of the form `[valid, error]`. If the schema is valid, then `valid` is `true`, and `error` is `null`. Otherwise, `valid` is `false` and `error` is a string describing the error.',
  ),
  impl: (_ctx, [s]) => {
    try {
      checkRootSchema(jsonOperand(s))
      return [true, null]
    } catch (err) {
      if (err instanceof BuiltinError) return [false, `jsonschema: ${err.message}`]
      throw err
    }
  },
})

export const MATCH_SCHEMA = defineBuiltin({
  name: 'json.match_schema',
  category: 'objects',
  description: 'Checks that the document matches the JSON schema.',
  args: [
    t.named('document', schemaArg, 'document to verify by schema'),
    t.named('schema', schemaArg, 'schema to verify document by'),
  ],
  result: t.named(
    'output',
    t.tuple(
      t.boolean,
      t.array(t.record({ desc: t.string, error: t.string, field: t.string, type: t.string })),
    ),
    '`output` is of the form `[match, errors]`. If the document is valid given the schema, then `match` is `true`, and `errors` is an empty array. Otherwise, `match` is `false` and `errors` is an array of objects describing the error(s).',
  ),
  impl: (_ctx, [d, s]) => {
    // OPA loads the document before the schema.
    const doc = jsonOperand(d)
    const schema = jsonOperand(s)
    checkRootSchema(schema)
    const v = new Validator(schema)
    v.check(doc, schema, [])
    const errors = v.errors.map((e) =>
      new Obj()
        .set('desc', e.desc)
        .set('error', `${e.field}: ${e.desc}`)
        .set('field', e.field)
        .set('type', e.type),
    )
    return [errors.length === 0, errors]
  },
})
