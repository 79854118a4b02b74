/**
 * Values written in Rego syntax (OPA's `Term.String()`): strings quoted, sets in braces and the
 * empty set as `set()`. Used by `sprintf("%v")`, `print`, error messages and non-string JSON keys.
 */
import { Decimal } from './decimal.js'
import { numberText } from './number.js'
import type { ObjectValue } from './object.js'
import { SetValue } from './set.js'
import type { Value } from './value.js'

/**
 * Rego text of a value.
 *
 * @example
 * formatValue(Value.set([])) // 'set()'
 */
export function formatValue(v: Value): string {
  switch (typeof v) {
    case 'string':
      return JSON.stringify(v)
    case 'boolean':
      return v ? 'true' : 'false'
    case 'number':
    case 'bigint':
      return numberText(v)
  }
  if (v === null) return 'null'
  if (v instanceof Decimal) return v.toString()
  if (Array.isArray(v)) return `[${v.map(formatValue).join(', ')}]`
  if (v instanceof SetValue) {
    if (v.size === 0) return 'set()'
    return `{${v.values().map(formatValue).join(', ')}}`
  }
  const parts = (v as ObjectValue).entries().map(([k, val]) => `${formatValue(k)}: ${formatValue(val)}`)
  return `{${parts.join(', ')}}`
}
