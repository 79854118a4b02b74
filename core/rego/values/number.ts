/**
 * Rego numbers with OPA's semantics and no silent loss of precision.
 *
 * A number has exactly one (canonical) representation, so equality is structural and hashing
 * is cheap:
 * - a JS `number` for every integer in the safe range and every non-integer whose shortest
 *   decimal form (`String(x)`) is the exact value meant: a JS number *denotes* `String(x)`;
 * - a `bigint` for integers outside the safe range;
 * - a {@link Decimal} for everything else (`0.10000000000000000001`, `1e-400`, `1e400000`).
 *
 * One exception keeps OPA's view that a number is its text: an integer written with a fraction
 * or an exponent (`101.00`, `1e2`) in source or JSON is a Decimal marked `floatForm`, because
 * sprintf formats it as a float64 (`%.2f` gives `101.00`, not `%!f(int=101)`). Equality, order
 * and hashing see through the mark ({@link canonicalNumber}); arithmetic results are canonical.
 *
 * Integer arithmetic is exact at any size. Non-integer arithmetic and inexact division go through
 * Go's `big.Float` rounding (64-bit mantissa), as OPA does. Comparison is exact.
 */
import {
  type BigFloat,
  floatAdd,
  floatFromDecimal,
  floatIsInteger,
  floatMul,
  floatNeg,
  floatQuo,
  floatToDecimal,
  floatTruncate,
} from './big-float.js'
import { Decimal, MAX_DECIMAL_EXPONENT, parseDecimal } from './decimal.js'

export { Decimal } from './decimal.js'

/** A canonical Rego number. */
export type RegoNumber = number | bigint | Decimal

/** Arithmetic that OPA rejects (`divide by zero`, `modulo on floating-point number`). */
export class ArithmeticError extends Error {
  override readonly name = 'ArithmeticError'
}

const MAX_SAFE = BigInt(Number.MAX_SAFE_INTEGER)
const SHORT_INT = /^-?\d{1,15}$/

/** The canonical number for an integer. */
export function numberFromBigInt(b: bigint): RegoNumber {
  return b >= -MAX_SAFE && b <= MAX_SAFE ? Number(b) : b
}

/** The canonical number for an exact decimal. */
export function canonicalDecimal(d: Decimal): RegoNumber {
  if (d.coef === 0n) return 0
  if (d.exp >= 0) {
    if (d.exp > MAX_DECIMAL_EXPONENT) return d
    return numberFromBigInt(d.coef * 10n ** BigInt(d.exp))
  }
  const x = Number(d.toString())
  if (Number.isFinite(x) && x !== 0) {
    const back = parseDecimal(String(x))
    if (back && back.coef === d.coef && back.exp === d.exp) return x
  }
  return d
}

/**
 * Parses a number lexeme (JSON syntax, as in Rego source and JSON documents) without losing
 * precision; undefined when `text` is not a number.
 *
 * @example
 * parseNumber('1') // 1
 * parseNumber('28857836529306024611913') // 28857836529306024611913n
 */
export function parseNumber(text: string): RegoNumber | undefined {
  if (SHORT_INT.test(text)) {
    const n = Number(text)
    return n === 0 ? 0 : n
  }
  const d = parseDecimal(text)
  if (d === undefined) return undefined
  const n = canonicalDecimal(d)
  if (typeof n === 'object') {
    // A fraction no JS number holds (`0.10000000000000000010`) keeps its text as well.
    if (n.isInteger() || n.toString() === text || !JSON_NUMBER.test(text)) return n
    return new Decimal(n.coef, n.exp, true, text)
  }
  if (typeof n === 'number' && !Number.isInteger(n)) {
    // So does a fraction written otherwise than JS prints it (`1.50`, `15e-1`): OPA's numbers
    // are their text (json.Number), which strings.render_template and every output print as is.
    if (String(n) === text || !JSON_NUMBER.test(text)) return n
    return new Decimal(d.coef, d.exp, true, text)
  }
  if (!FLOAT_FORM.test(text)) return n
  return new Decimal(d.coef, d.exp, true, JSON_NUMBER.test(text) ? text : undefined)
}

const FLOAT_FORM = /[.eE]/
/** JSON's number grammar: only such text is printed back as written. */
const JSON_NUMBER = /^-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?$/

/**
 * True for a number kept in the form it was written in: an integer written as a float (`1.0`,
 * `1e2`) or a fraction with a text of its own (`1.50`); it equals its canonical number.
 */
export function isFloatForm(v: unknown): v is Decimal {
  return typeof v === 'object' && v instanceof Decimal && v.floatForm
}

/** `v` with a float form dropped (`1.0` as 1), for keys and indexes; any other value as it is. */
export function withoutFloatForm<T>(v: T): T {
  return (isFloatForm(v) ? canonicalNumber(v) : v) as T
}

/** The canonical number equal to `n` (drops a float form; identity for everything else). */
export function canonicalNumber(n: RegoNumber): RegoNumber {
  return n instanceof Decimal && n.floatForm ? canonicalDecimal(new Decimal(n.coef, n.exp)) : n
}

/**
 * The number for a JS double (a JS number means its shortest decimal form); throws a RangeError
 * for NaN and infinities, which Rego has no value for. From 1e21 on it keeps the exponent form a
 * float64 prints in (`1.2345678901234568e+29`, JavaScript's text and Go's alike: a YAML integer
 * past 64 bits, read by go-yaml as a float64, comes out of OPA so); below, it is the integer.
 */
export function numberFromDouble(x: number): RegoNumber {
  if (!Number.isFinite(x)) throw new RangeError(`${x} is not a valid number`)
  if (x === 0) return 0
  if (!Number.isInteger(x) || Number.isSafeInteger(x)) return x
  return parseNumber(String(x)) as RegoNumber
}

/** True for the three number representations. */
export function isNumber(v: unknown): v is RegoNumber {
  return typeof v === 'number' || typeof v === 'bigint' || v instanceof Decimal
}

/** True when `n` has no fractional part. */
export function isInteger(n: RegoNumber): boolean {
  if (typeof n === 'number') return Number.isInteger(n)
  if (typeof n === 'bigint') return true
  return n.isInteger()
}

/** The integer value of `n`, or undefined when it has a fractional part. */
export function toBigInt(n: RegoNumber): bigint | undefined {
  if (typeof n === 'number') return Number.isInteger(n) ? BigInt(n) : undefined
  if (typeof n === 'bigint') return n
  return n.exp >= 0 ? n.coef * 10n ** BigInt(n.exp) : undefined
}

/** `n` read as a 64-bit big.Float and truncated toward zero (OPA's `NumberToFloat(n).Int(nil)`). */
export function truncatedFloat(n: RegoNumber): bigint {
  return floatTruncate(toFloat(n))
}

/**
 * `x * factor` as an integer, computed the way Go's `big.Float` does it at its default 64-bit
 * precision: `x` rounded when read, the product rounded again, then truncated toward zero. OPA's
 * units.parse_bytes works so (SetString, Mul, Int), which makes amounts of more than ~19
 * significant digits, or just below an integer, come out inexact.
 */
export function truncatedFloatProduct(x: Decimal, factor: bigint): bigint {
  return floatTruncate(floatMul(floatFromDecimal(x), floatFromDecimal(new Decimal(factor, 0))))
}

/** The value as a JS safe integer, or undefined when it is not an integer or too large. */
export function toSafeInt(n: RegoNumber): number | undefined {
  if (n instanceof Decimal && n.floatForm) n = canonicalNumber(n)
  return typeof n === 'number' && Number.isInteger(n) ? n : undefined
}

/** The nearest double (may round or overflow to ±Infinity). */
export function toDouble(n: RegoNumber): number {
  if (typeof n === 'number') return n
  if (typeof n === 'bigint') return Number(n)
  return Number(n.toString())
}

/** JSON text of a number. */
export function numberText(n: RegoNumber): string {
  return typeof n === 'number' ? String(n) : n.toString()
}

/** The exact decimal value of any number. */
export function toDecimal(n: RegoNumber): Decimal {
  if (typeof n === 'number') {
    return Number.isInteger(n) ? new Decimal(BigInt(n), 0) : (parseDecimal(String(n)) as Decimal)
  }
  if (typeof n === 'bigint') return new Decimal(n, 0)
  return n
}

function sign(b: bigint): number {
  return b < 0n ? -1 : b > 0n ? 1 : 0
}

/** Exact total order on numbers: -1, 0 or 1. */
export function compareNumbers(a: RegoNumber, b: RegoNumber): number {
  if (typeof a === 'number' && typeof b === 'number') return a < b ? -1 : a > b ? 1 : 0
  if (typeof a === 'bigint' && typeof b === 'bigint') return a < b ? -1 : a > b ? 1 : 0
  // A canonical JS number is below 2^53 in magnitude, a canonical bigint above it.
  if (typeof a === 'number' && typeof b === 'bigint') return b > 0n ? -1 : 1
  if (typeof a === 'bigint' && typeof b === 'number') return a > 0n ? 1 : -1
  const x = toDecimal(a)
  const y = toDecimal(b)
  const sx = sign(x.coef)
  const sy = sign(y.coef)
  if (sx !== sy) return sx < sy ? -1 : 1
  if (sx === 0) return 0
  const mx = x.digits() + x.exp
  const my = y.digits() + y.exp
  if (mx !== my) return (mx < my ? -1 : 1) * sx
  const e = Math.min(x.exp, y.exp)
  const cx = x.coef * 10n ** BigInt(x.exp - e)
  const cy = y.coef * 10n ** BigInt(y.exp - e)
  return cx < cy ? -1 : cx > cy ? 1 : 0
}

function toFloat(n: RegoNumber): BigFloat {
  return floatFromDecimal(toDecimal(n))
}

function fromFloat(f: BigFloat): RegoNumber {
  return canonicalDecimal(floatToDecimal(f))
}

/** `a + b`. */
export function add(a: RegoNumber, b: RegoNumber): RegoNumber {
  if (typeof a === 'number' && typeof b === 'number' && Number.isInteger(a) && Number.isInteger(b)) {
    const r = a + b
    if (Number.isSafeInteger(r)) return r === 0 ? 0 : r
  }
  const x = toBigInt(a)
  const y = toBigInt(b)
  if (x !== undefined && y !== undefined) return numberFromBigInt(x + y)
  return fromFloat(floatAdd(toFloat(a), toFloat(b)))
}

/** `-a`. */
export function negate(a: RegoNumber): RegoNumber {
  if (typeof a === 'number') return a === 0 ? 0 : -a
  if (typeof a === 'bigint') return numberFromBigInt(-a)
  return new Decimal(-a.coef, a.exp)
}

/** `a - b`. */
export function subtract(a: RegoNumber, b: RegoNumber): RegoNumber {
  if (typeof a === 'number' && typeof b === 'number' && Number.isInteger(a) && Number.isInteger(b)) {
    const r = a - b
    if (Number.isSafeInteger(r)) return r === 0 ? 0 : r
  }
  const x = toBigInt(a)
  const y = toBigInt(b)
  if (x !== undefined && y !== undefined) return numberFromBigInt(x - y)
  return fromFloat(floatAdd(toFloat(a), floatNeg(toFloat(b))))
}

/** `a * b`. */
export function multiply(a: RegoNumber, b: RegoNumber): RegoNumber {
  if (typeof a === 'number' && typeof b === 'number' && Number.isInteger(a) && Number.isInteger(b)) {
    const r = a * b
    if (Number.isSafeInteger(r)) return r === 0 ? 0 : r
  }
  const x = toBigInt(a)
  const y = toBigInt(b)
  if (x !== undefined && y !== undefined) return numberFromBigInt(x * y)
  return fromFloat(floatMul(toFloat(a), toFloat(b)))
}

/** `a / b`: exact when both are integers and `b` divides `a`, else a rounded float quotient. */
export function divide(a: RegoNumber, b: RegoNumber): RegoNumber {
  if (isZero(b)) throw new ArithmeticError('divide by zero')
  const x = toBigInt(a)
  const y = toBigInt(b)
  if (x !== undefined && y !== undefined && x % y === 0n) return numberFromBigInt(x / y)
  return fromFloat(floatQuo(toFloat(a), toFloat(b)))
}

/** `a % b` on integers (sign of the dividend, as Go's `%`). */
export function remainder(a: RegoNumber, b: RegoNumber): RegoNumber {
  if (typeof a === 'number' && typeof b === 'number' && Number.isInteger(a) && Number.isInteger(b)) {
    if (b === 0) throw new ArithmeticError('modulo by zero')
    const r = a % b
    return r === 0 ? 0 : r
  }
  const x = toBigInt(a)
  const y = toBigInt(b)
  if (x === undefined || y === undefined) throw new ArithmeticError('modulo on floating-point number')
  if (y === 0n) throw new ArithmeticError('modulo by zero')
  return numberFromBigInt(x % y)
}

/** True when `n` is zero. */
export function isZero(n: RegoNumber): boolean {
  return typeof n === 'number' ? n === 0 : typeof n === 'bigint' ? n === 0n : n.coef === 0n
}

/**
 * The int32 value of `a` when it is written as an integer in that window: the numbers OPA's unary
 * arithmetic (`arithUnary` in v1/topdown/arithmetic.go) handles as ints. Any other number,
 * `3.0` included, goes through a 64-bit big.Float (`builtins.NumberToFloat`).
 */
function smallInt(a: RegoNumber): number | undefined {
  return typeof a === 'number' && Number.isInteger(a) && a >= -(2 ** 31) && a < 2 ** 31 ? a : undefined
}

const HALF = floatFromDecimal(new Decimal(5n, -1))

/** `|a|`: exact on small ints, else the 64-bit float's magnitude (OPA's `opAbs`). */
export function abs(a: RegoNumber): RegoNumber {
  const small = smallInt(a)
  if (small !== undefined) return Math.abs(small)
  const f = toFloat(a)
  return fromFloat(f.neg ? floatNeg(f) : f)
}

/**
 * Largest integer not above `a`, as OPA's `arithFloor` computes it: the 64-bit float truncated,
 * less one when the truncation is negative and inexact. The truncation of a value in (-1, 0) is
 * zero, which has no sign, so OPA's floor(-0.5) is 0 (and ceil(-0.5) is 1).
 */
export function floor(a: RegoNumber): RegoNumber {
  if (smallInt(a) !== undefined) return a
  const f = toFloat(a)
  const i = floatTruncate(f)
  return numberFromBigInt(i >= 0n || floatIsInteger(f) ? i : i - 1n)
}

/** Smallest integer not below `a`, as OPA's `arithCeil` computes it (see {@link floor}). */
export function ceil(a: RegoNumber): RegoNumber {
  if (smallInt(a) !== undefined) return a
  const f = toFloat(a)
  const i = floatTruncate(f)
  return numberFromBigInt(i < 0n || floatIsInteger(f) ? i : i + 1n)
}

/**
 * Nearest integer, halves away from zero, as OPA's `arithRound`: the 64-bit float plus or minus
 * one half (rounded to 64 bits again), truncated.
 */
export function round(a: RegoNumber): RegoNumber {
  if (smallInt(a) !== undefined) return a
  const f = toFloat(a)
  return numberFromBigInt(floatTruncate(floatAdd(f, f.neg ? floatNeg(HALF) : HALF)))
}

const hashView = new DataView(new ArrayBuffer(8))

/** A 32-bit hash consistent with {@link compareNumbers} equality (representations are canonical). */
export function hashNumber(n: RegoNumber): number {
  if (typeof n === 'number') {
    if (Number.isInteger(n)) return Math.imul(n | 0, 0x9e3779b1) ^ ((n / 4294967296) | 0)
    hashView.setFloat64(0, n)
    return Math.imul(hashView.getInt32(0) ^ hashView.getInt32(4), 0x85ebca6b)
  }
  if (typeof n === 'bigint') return Math.imul(Number(BigInt.asIntN(32, n)), 0x27d4eb2f) ^ 0x5bd1e995
  if (n.floatForm) return hashNumber(canonicalNumber(n))
  return Math.imul(Number(BigInt.asIntN(32, n.coef)) ^ n.exp, 0x165667b1)
}
