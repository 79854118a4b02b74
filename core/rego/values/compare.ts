/**
 * OPA's total order on values and value equality. Kinds rank null < boolean < number < string
 * (< var < ref, which are not values) < array < object < set; within a kind: false < true,
 * numbers exactly, strings by UTF-8 bytes, arrays element by element then by length, objects by
 * their sorted keys then values, sets by their sorted elements.
 *
 * NOTE(values): this module only imports types from value.ts, so that object.ts and set.ts can use
 * it without an import cycle.
 */
import type { Decimal } from './decimal.js'
import { canonicalNumber, compareNumbers, isFloatForm } from './number.js'
import type { ObjectValue } from './object.js'
import type { SetValue } from './set.js'
import type { Value } from './value.js'

type Tagged = Decimal | ObjectValue | SetValue

/** Rank of a value's kind in OPA's order (4 and 5 are vars and refs). */
export function kindRank(v: Value): number {
  switch (typeof v) {
    case 'boolean':
      return 1
    case 'number':
    case 'bigint':
      return 2
    case 'string':
      return 3
    default: {
      if (v === null) return 0
      if (Array.isArray(v)) return 6
      const tag = (v as Tagged).tag
      return tag === 'decimal' ? 2 : tag === 'object' ? 7 : 8
    }
  }
}

/**
 * Compares strings by their UTF-8 bytes (that is, by code points), which is how Go and OPA
 * order strings. JS compares UTF-16 code units, which differs once surrogates are involved.
 */
export function compareStrings(a: string, b: string): number {
  if (a === b) return 0
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    let ca = a.charCodeAt(i)
    let cb = b.charCodeAt(i)
    if (ca !== cb) {
      if (ca >= 0xd800 && cb >= 0xd800) {
        // Surrogates (astral code points) sort after U+E000..U+FFFF in code point order.
        ca = ca >= 0xe000 ? ca - 0x800 : ca + 0x2000
        cb = cb >= 0xe000 ? cb - 0x800 : cb + 0x2000
      }
      return ca < cb ? -1 : 1
    }
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0
}

/** Total order on values: negative, zero or positive. */
export function compareValues(a: Value, b: Value): number {
  if (a === b) return 0
  const ra = kindRank(a)
  const rb = kindRank(b)
  if (ra !== rb) return ra < rb ? -1 : 1
  switch (ra) {
    case 0:
      return 0
    case 1:
      return a ? 1 : -1
    case 2:
      return compareNumbers(a as number, b as number)
    case 3:
      return compareStrings(a as string, b as string)
    case 6:
      return compareArrays(a as readonly Value[], b as readonly Value[])
    case 7:
      return compareObjects(a as ObjectValue, b as ObjectValue)
    default:
      return compareArrays((a as SetValue).values(), (b as SetValue).values())
  }
}

function compareArrays(a: readonly Value[], b: readonly Value[]): number {
  const n = Math.min(a.length, b.length)
  for (let i = 0; i < n; i++) {
    const c = compareValues(a[i] as Value, b[i] as Value)
    if (c !== 0) return c
  }
  return a.length < b.length ? -1 : a.length > b.length ? 1 : 0
}

function compareObjects(a: ObjectValue, b: ObjectValue): number {
  const ea = a.entries()
  const eb = b.entries()
  const n = Math.min(ea.length, eb.length)
  for (let i = 0; i < n; i++) {
    const [ka, va] = ea[i] as readonly [Value, Value]
    const [kb, vb] = eb[i] as readonly [Value, Value]
    const kc = compareValues(ka, kb)
    if (kc !== 0) return kc
    const vc = compareValues(va, vb)
    if (vc !== 0) return vc
  }
  return ea.length < eb.length ? -1 : ea.length > eb.length ? 1 : 0
}

/** Value equality (faster than `compareValues(a, b) === 0`). Representations are canonical. */
export function equalValues(a: Value, b: Value): boolean {
  if (a === b) return true
  if (typeof a !== 'object' || typeof b !== 'object' || a === null || b === null)
    return (typeof a === 'object' || typeof b === 'object') && floatFormEqual(a, b)
  if (Array.isArray(a)) {
    if (!Array.isArray(b) || a.length !== b.length) return false
    for (let i = 0; i < a.length; i++) if (!equalValues(a[i] as Value, b[i] as Value)) return false
    return true
  }
  if (Array.isArray(b)) return false
  const ta = (a as Tagged).tag
  if (ta !== (b as Tagged).tag) return false
  if (ta === 'decimal')
    return (a as Decimal).coef === (b as Decimal).coef && (a as Decimal).exp === (b as Decimal).exp
  if (ta === 'object') {
    const oa = a as ObjectValue
    const ob = b as ObjectValue
    if (oa.size !== ob.size) return false
    for (const [k, v] of oa.unsortedEntries()) {
      const w = ob.get(k)
      if (w === undefined || !equalValues(v, w)) return false
    }
    return true
  }
  const sa = a as SetValue
  const sb = b as SetValue
  if (sa.size !== sb.size) return false
  for (const v of sa.unsortedValues()) if (!sb.has(v)) return false
  return true
}

/** `1.0 == 1`: an integer kept in float form equals its canonical number. */
function floatFormEqual(a: Value, b: Value): boolean {
  if (isFloatForm(a)) return canonicalNumber(a) === b
  if (isFloatForm(b)) return canonicalNumber(b) === a
  return false
}
