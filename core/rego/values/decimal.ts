/**
 * An exact decimal `coef * 10^exp`. Rego numbers use it for the values a JS number cannot hold
 * without changing them (`0.10000000000000000001`, `1e400`); everything else is a JS number or a
 * bigint (see number.ts).
 */

/** Largest decimal exponent accepted; beyond this, expanding `10^exp` would exhaust memory. */
export const MAX_DECIMAL_EXPONENT = 100_000

/** A decimal number; `tag` lets values be told apart without `instanceof`. */
export class Decimal {
  readonly tag = 'decimal' as const
  readonly coef: bigint
  readonly exp: number
  /**
   * True for an integral value written with a fraction or an exponent (`101.00`, `1e2`), or a
   * fraction written otherwise than its shortest form (`1.50`). OPA's numbers are their text and
   * sprintf hands such a number to Go as a float64, so the form is kept; equality, order and
   * hashing treat it as the number it equals (number.ts).
   */
  readonly floatForm: boolean
  /**
   * The JSON text a float-form number was written as (`101.00`, `1e2`): OPA's numbers are their
   * text (json.Number), so output prints it as written.
   */
  readonly text: string | undefined

  /** Builds `coef * 10^exp`, normalized so that `coef` has no trailing zero digits. */
  constructor(coef: bigint, exp: number, floatForm = false, text?: string) {
    if (coef !== 0n) {
      while (coef % 10n === 0n) {
        coef /= 10n
        exp++
      }
    } else {
      exp = 0
    }
    this.coef = coef
    this.exp = exp
    this.floatForm = floatForm
    this.text = floatForm ? text : undefined
  }

  /** True when the value has no fractional part. */
  isInteger(): boolean {
    return this.exp >= 0
  }

  /** Number of decimal digits in `coef`. */
  digits(): number {
    const s = this.coef < 0n ? (-this.coef).toString() : this.coef.toString()
    return s.length
  }

  /**
   * JSON number text (`1.5`, `-2e-400`, `1e+400`); a float-form integer prints the text it was
   * written as, or its digits when that is not known.
   */
  toString(): string {
    if (this.floatForm && this.text !== undefined) return this.text
    if (this.floatForm && this.exp >= 0) return (this.coef * 10n ** BigInt(this.exp)).toString()
    return decimalText(this.coef, this.exp)
  }
}

/** JSON text for `coef * 10^exp`: plain notation for moderate exponents, scientific otherwise. */
export function decimalText(coef: bigint, exp: number): string {
  const neg = coef < 0n
  const digits = (neg ? -coef : coef).toString()
  const sign = neg ? '-' : ''
  if (exp >= 0) {
    if (exp <= 21) return sign + digits + '0'.repeat(exp)
    return `${sign}${sciText(digits, exp)}`
  }
  const point = digits.length + exp
  if (point > 0) return `${sign}${digits.slice(0, point)}.${digits.slice(point)}`
  if (point > -7) return `${sign}0.${'0'.repeat(-point)}${digits}`
  return `${sign}${sciText(digits, exp)}`
}

function sciText(digits: string, exp: number): string {
  const e = exp + digits.length - 1
  const mantissa = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits
  return `${mantissa}e${e >= 0 ? '+' : ''}${e}`
}

const NUMBER_LEXEME = /^(-?)(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/

/**
 * Splits a number lexeme (JSON syntax; leading zeros tolerated) into an exact decimal, or
 * undefined when the text is not a number or its exponent is out of range.
 */
export function parseDecimal(text: string): Decimal | undefined {
  const m = NUMBER_LEXEME.exec(text)
  if (!m) return undefined
  const [, sign, int = '', frac = '', expText] = m
  const exp = (expText === undefined ? 0 : Number(expText)) - frac.length
  if (!Number.isSafeInteger(exp) || Math.abs(exp) > MAX_DECIMAL_EXPONENT + 1000) return undefined
  const coef = BigInt(int + frac)
  return new Decimal(sign === '-' ? -coef : coef, exp)
}
