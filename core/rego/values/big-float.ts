/**
 * Binary floating point with a 64-bit mantissa and round-half-to-even, which is what Go's
 * `big.Float` does at its default precision. OPA runs every non-integer arithmetic operation
 * through such floats (`builtins.NumberToFloat`, `builtins.FloatToNumber`), so emulating them is
 * the only way to give the same answers (`0.1 + 0.2` is `0.3`, `1 / 3 * 3` is `1`).
 *
 * NOTE(values): only non-integer arithmetic comes here; integers stay exact bigints, as in OPA's
 * `v1/topdown/arithmetic.go`.
 */
import { Decimal } from './decimal.js'

const PREC = 64
const TOP = 1n << 64n

/** A finite binary float: `(neg ? -1 : 1) * mant * 2^exp`, `mant` normalized to 64 bits (or 0). */
export interface BigFloat {
  readonly neg: boolean
  readonly mant: bigint
  readonly exp: number
}

const ZERO: BigFloat = { neg: false, mant: 0n, exp: 0 }

function bitLength(n: bigint): number {
  return n === 0n ? 0 : n.toString(2).length
}

/** Rounds `n * 2^exp` (with `sticky` marking nonzero bits below `n`) to 64 bits, half to even. */
function round(neg: boolean, n: bigint, exp: number, sticky: boolean): BigFloat {
  if (n === 0n) return ZERO
  const bits = bitLength(n)
  if (bits <= PREC) {
    const shift = PREC - bits
    return { neg, mant: n << BigInt(shift), exp: exp - shift }
  }
  const drop = bits - PREC
  const dropN = BigInt(drop)
  let mant = n >> dropN
  const rest = n & ((1n << dropN) - 1n)
  const half = 1n << (dropN - 1n)
  if (rest > half || (rest === half && (sticky || (mant & 1n) === 1n))) mant += 1n
  let e = exp + drop
  if (mant === TOP) {
    mant >>= 1n
    e += 1
  }
  return { neg, mant, exp: e }
}

/** The float nearest to the decimal `coef * 10^exp10`. */
export function floatFromDecimal(d: Decimal): BigFloat {
  const neg = d.coef < 0n
  const coef = neg ? -d.coef : d.coef
  if (coef === 0n) return ZERO
  if (d.exp >= 0) return round(neg, coef * 10n ** BigInt(d.exp), 0, false)
  const den = 10n ** BigInt(-d.exp)
  const shift = Math.max(0, PREC + 2 + bitLength(den) - bitLength(coef))
  const scaled = coef << BigInt(shift)
  return round(neg, scaled / den, -shift, scaled % den !== 0n)
}

/** The exact decimal value of a float. */
function exactDecimal(f: BigFloat): { coef: bigint; exp: number } {
  if (f.exp >= 0) return { coef: f.mant << BigInt(f.exp), exp: 0 }
  // m / 2^k = m * 5^k / 10^k
  return { coef: f.mant * 5n ** BigInt(-f.exp), exp: f.exp }
}

function sameFloat(a: BigFloat, b: BigFloat): boolean {
  return a.mant === b.mant && (a.mant === 0n || (a.neg === b.neg && a.exp === b.exp))
}

/**
 * The shortest decimal that converts back to the same float (Go's `Text(format, -1)`).
 */
export function floatToDecimal(f: BigFloat): Decimal {
  if (f.mant === 0n) return new Decimal(0n, 0)
  const exact = exactDecimal(f)
  const sign = f.neg ? -1n : 1n
  const digits = exact.coef.toString()
  for (let n = 1; n < digits.length; n++) {
    // Round the digit string to n significant digits, half to even.
    let head = BigInt(digits.slice(0, n))
    const next = digits.charCodeAt(n) - 48
    const restNonZero = /[1-9]/.test(digits.slice(n + 1))
    if (next > 5 || (next === 5 && (restNonZero || (head & 1n) === 1n))) head += 1n
    const candidate = new Decimal(sign * head, exact.exp + digits.length - n)
    if (sameFloat(floatFromDecimal(candidate), f)) return candidate
  }
  return new Decimal(sign * exact.coef, exact.exp)
}

function toSigned(f: BigFloat): bigint {
  return f.neg ? -f.mant : f.mant
}

/** `a + b`, rounded once. */
export function floatAdd(a: BigFloat, b: BigFloat): BigFloat {
  if (a.mant === 0n) return b
  if (b.mant === 0n) return a
  // Far apart operands: the small one only nudges rounding, so clamp its exponent to keep
  // the shifted integers small (it still breaks ties correctly as a sticky bit).
  const hi = a.exp >= b.exp ? a : b
  let lo = a.exp >= b.exp ? b : a
  if (hi.exp - lo.exp > 3 * PREC) lo = { neg: lo.neg, mant: 1n, exp: hi.exp - 3 * PREC }
  const shift = BigInt(hi.exp - lo.exp)
  const sum = (toSigned(hi) << shift) + toSigned(lo)
  const neg = sum < 0n
  return round(neg, neg ? -sum : sum, lo.exp, false)
}

/** `-a`. */
export function floatNeg(a: BigFloat): BigFloat {
  return a.mant === 0n ? a : { neg: !a.neg, mant: a.mant, exp: a.exp }
}

/** `a * b`, rounded once. */
export function floatMul(a: BigFloat, b: BigFloat): BigFloat {
  if (a.mant === 0n || b.mant === 0n) return ZERO
  return round(a.neg !== b.neg, a.mant * b.mant, a.exp + b.exp, false)
}

/** `a / b`, rounded once; `b` must not be zero. */
export function floatQuo(a: BigFloat, b: BigFloat): BigFloat {
  if (a.mant === 0n) return ZERO
  const shift = PREC + 2 + bitLength(b.mant) - bitLength(a.mant)
  const num = a.mant << BigInt(Math.max(0, shift))
  const q = num / b.mant
  return round(a.neg !== b.neg, q, a.exp - Math.max(0, shift) - b.exp, num % b.mant !== 0n)
}

/** The integer part of `a`, truncated toward zero (Go's `Float.Int`). */
export function floatTruncate(a: BigFloat): bigint {
  const magnitude = a.exp >= 0 ? a.mant << BigInt(a.exp) : a.mant >> BigInt(-a.exp)
  return a.neg ? -magnitude : magnitude
}

/** True when `a` has no fractional part. */
export function floatIsInteger(a: BigFloat): boolean {
  return a.exp >= 0 || (a.mant & ((1n << BigInt(-a.exp)) - 1n)) === 0n
}
