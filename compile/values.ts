/**
 * Constants of the residual turned into JSON values, and Rego's ordering of values, which decides the
 * order of a set's elements in UCAST `in` lists and SQL `IN (...)` lists.
 */
import { isLosslessNumber, LosslessNumber } from 'lossless-json'
import type { Term } from '../core/rego/syntax/ast.js'
import type { JsonValue } from './types.js'

/**
 * The JSON value of a ground term; sets become arrays in Rego's order. Returns undefined when the term
 * is not a constant (a ref, var, call or comprehension somewhere inside).
 */
export function termToJson(term: Term): JsonValue | undefined {
  switch (term.type) {
    case 'null':
    case 'boolean':
    case 'string':
      return term.value
    case 'number':
      return new LosslessNumber(term.value)
    case 'array':
      return listToJson(term.value)
    case 'set': {
      const items = listToJson(term.value)
      return items && sortedUnique(items)
    }
    case 'object': {
      const out: { [key: string]: JsonValue } = {}
      for (const [k, v] of term.value) {
        // JSON objects have string keys; other keys have no faithful JSON form.
        if (k.type !== 'string') return undefined
        const value = termToJson(v)
        if (value === undefined) return undefined
        out[k.value] = value
      }
      return out
    }
    default:
      return undefined
  }
}

function listToJson(terms: readonly Term[]): JsonValue[] | undefined {
  const out: JsonValue[] = []
  for (const t of terms) {
    const v = termToJson(t)
    if (v === undefined) return undefined
    out.push(v)
  }
  return out
}

/** `values` sorted in Rego's order with duplicates removed (the elements of a set). */
export function sortedUnique(values: JsonValue[]): JsonValue[] {
  const sorted = [...values].sort(compareJson)
  return sorted.filter((v, i) => i === 0 || compareJson(sorted[i - 1]!, v) !== 0)
}

// Rego orders values by type first: null, booleans, numbers, strings, arrays, objects.
function rank(v: JsonValue): number {
  if (v === null) return 0
  if (typeof v === 'boolean') return 1
  if (typeof v === 'number' || isLosslessNumber(v)) return 2
  if (typeof v === 'string') return 3
  if (Array.isArray(v)) return 4
  return 5
}

/** Rego's total order on JSON values: type rank, then numbers by value, strings by UTF-8 bytes. */
export function compareJson(a: JsonValue, b: JsonValue): number {
  const ra = rank(a)
  const rb = rank(b)
  if (ra !== rb) return ra - rb
  switch (ra) {
    case 0:
      return 0
    case 1:
      return Number(a) - Number(b)
    case 2:
      return compareNumberText(numberText(a), numberText(b))
    case 3:
      return Buffer.compare(Buffer.from(a as string, 'utf8'), Buffer.from(b as string, 'utf8'))
    case 4: {
      const xs = a as JsonValue[]
      const ys = b as JsonValue[]
      for (let i = 0; i < Math.min(xs.length, ys.length); i++) {
        const c = compareJson(xs[i]!, ys[i]!)
        if (c !== 0) return c
      }
      return xs.length - ys.length
    }
    default: {
      const xa = a as { [key: string]: JsonValue }
      const xb = b as { [key: string]: JsonValue }
      const ka = Object.keys(xa).sort()
      const kb = Object.keys(xb).sort()
      const keys = compareJson(ka, kb)
      if (keys !== 0) return keys
      for (const k of ka) {
        const c = compareJson(xa[k]!, xb[k]!)
        if (c !== 0) return c
      }
      return 0
    }
  }
}

/** The decimal text of a JSON number (a JS number or a `LosslessNumber`). */
export function numberText(v: JsonValue): string {
  return typeof v === 'number' ? String(v) : (v as LosslessNumber).value
}

interface Decimal {
  negative: boolean
  /** Significant digits without leading or trailing zeros; '' for zero. */
  digits: string
  /** The value is 0.digits × 10^exponent. */
  exponent: number
}

function decompose(text: string): Decimal {
  const m = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/.exec(text.trim())
  if (!m) return { negative: false, digits: '', exponent: 0 }
  const intPart = m[2] ?? ''
  const all = intPart + (m[3] ?? '')
  let exponent = Number.parseInt(m[4] ?? '0', 10) + intPart.length
  let start = 0
  while (start < all.length && all[start] === '0') {
    start++
    exponent--
  }
  const digits = all.slice(start).replace(/0+$/, '')
  return { negative: m[1] === '-' && digits !== '', digits, exponent: digits === '' ? 0 : exponent }
}

/** Compares two JSON number texts exactly (no float rounding): negative, zero or positive. */
export function compareNumberText(a: string, b: string): number {
  const x = decompose(a)
  const y = decompose(b)
  if (x.negative !== y.negative) return x.negative ? -1 : 1
  const sign = x.negative ? -1 : 1
  if (x.digits === '' || y.digits === '') {
    if (x.digits === y.digits) return 0
    return x.digits === '' ? -sign : sign
  }
  if (x.exponent !== y.exponent) return x.exponent < y.exponent ? -sign : sign
  if (x.digits === y.digits) return 0
  return x.digits < y.digits ? -sign : sign
}
