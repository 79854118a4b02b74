/** units.parse and units.parse_bytes: quantities with SI / IEC suffixes (exactly, and as OPA's 64-bit floats). */
import { t } from '../types/index.js'
import type { RegoNumber } from '../values/index.js'
import { Decimal, numberFromBigInt, parseNumber, truncatedFloatProduct } from '../values/index.js'
import { defineBuiltin } from './define.js'
import { BuiltinError } from './errors.js'
import { stringOperand } from './operands.js'

const isDigit = (c: string | undefined) => c !== undefined && c >= '0' && c <= '9'

/** OPA rejects an exponent written with more digits than this (`exponent too large`). */
const MAX_EXPONENT_DIGITS = 6

/** Thrown by {@link splitAmount}; each built-in reports it as `exponent too large`. */
export class ExponentTooLargeError extends Error {}

/**
 * Splits `12.5Mi` into number and unit as OPA does (`e`/`E` belong to the number only before a
 * digit or sign), rejecting an exponent of more than six digits as OPA's `extractNumAndUnit` does.
 */
export function splitAmount(s: string): [string, string] {
  for (let i = 0; i < s.length; i++) {
    const c = s[i] as string
    if (c === 'e' || c === 'E') {
      const next = s[i + 1]
      if (next === undefined || (!isDigit(next) && next !== '+' && next !== '-'))
        return [s.slice(0, i), s.slice(i)]
      if (next === '+' || next === '-') i++
      let end = i + 1
      while (isDigit(s[end])) end++
      if (end - (i + 1) > MAX_EXPONENT_DIGITS) throw new ExponentTooLargeError()
      continue
    }
    if (!isDigit(c) && c !== '.' && c !== '+' && c !== '-') return [s.slice(0, i), s.slice(i)]
  }
  return [s, '']
}

const RAT = /^([+-]?)(\d*)(?:\.(\d*))?(?:[eE]([+-]?\d+))?$/

/** The wording of one built-in's errors: OPA says `amount` for units.parse, `byte amount` for parse_bytes. */
interface Wording {
  readonly amount: string
}

const UNITS_WORDING: Wording = { amount: 'amount' }
const BYTES_WORDING: Wording = { amount: 'byte amount' }

/** An exact rational amount from Go `big.Rat` syntax, as numerator / 10^scale. */
function parseAmount(text: string, words: Wording): { num: bigint; scale: number } {
  const m = RAT.exec(text)
  const [, sign = '', int = '', frac = '', exp] = m ?? []
  const notANumber = () => new BuiltinError(`could not parse ${words.amount} to a number`)
  if (!m || (int === '' && frac === '')) throw notANumber()
  let num = BigInt((int || '0') + frac)
  let scale = frac.length - Number(exp ?? 0)
  // A bound of our own (OPA computes 10^999999 exactly): keeps a tiny string from costing megabytes.
  if (Math.abs(scale) > 10_000) throw notANumber()
  if (scale < 0) {
    num *= 10n ** BigInt(-scale)
    scale = 0
  }
  return { num: sign === '-' ? -num : num, scale }
}

function prepare(raw: string, lower: boolean, words: Wording): [string, string] {
  let s = raw.replaceAll('"', '')
  if (lower) s = s.toLowerCase()
  if (s.includes(' ')) throw new BuiltinError('spaces not allowed in resource strings')
  let split: [string, string]
  try {
    split = splitAmount(s)
  } catch (err) {
    if (err instanceof ExponentTooLargeError) throw new BuiltinError('exponent too large')
    throw err
  }
  const [num, unit] = split
  if (num === '') throw new BuiltinError(`no ${words.amount} provided`)
  return [num, unit]
}

const SI = (n: number) => 10n ** BigInt(n)
const IEC = (n: number) => 2n ** BigInt(n)

const UNITS: Readonly<Record<string, bigint>> = {
  '': 1n,
  k: SI(3),
  K: SI(3),
  ki: IEC(10),
  Ki: IEC(10),
  M: SI(6),
  Mi: IEC(20),
  mi: IEC(20),
  g: SI(9),
  G: SI(9),
  gi: IEC(30),
  Gi: IEC(30),
  t: SI(12),
  T: SI(12),
  ti: IEC(40),
  Ti: IEC(40),
  p: SI(15),
  P: SI(15),
  pi: IEC(50),
  Pi: IEC(50),
  e: SI(18),
  E: SI(18),
  ei: IEC(60),
  Ei: IEC(60),
}

export const unitsParse = defineBuiltin({
  name: 'units.parse',
  category: 'units',
  description:
    'Converts strings like "10G", "5K", "4M", "1500m", and the like into a number. This number can be a non-integer, such as 1.5, 0.22, etc. Scientific notation is supported, allowing values such as "1e-3K" (1) or "2.5e6M" (2.5 million M).',
  args: [t.named('x', t.string, 'the unit to parse')],
  result: t.named('y', t.number, 'the parsed number'),
  impl: (_ctx, [x]) => {
    const [num, rawUnit] = prepare(stringOperand(x, 1), false, UNITS_WORDING)
    // Only letters after the first are case-insensitive, so that m (milli) and M (mega) differ.
    const unit = rawUnit.length > 1 ? rawUnit[0] + rawUnit.slice(1).toLowerCase() : rawUnit
    // OPA checks the unit before the amount: `1.2.3Q` fails on the unit.
    const factor = unit === 'm' ? MILLI : UNITS[unit]
    if (factor === undefined) throw new BuiltinError(`unit ${unit} not recognized`)
    const amount = parseAmount(num, UNITS_WORDING)
    const [n, d] = typeof factor === 'bigint' ? [factor, 1n] : factor
    return ratNumber(amount.num * n, 10n ** BigInt(amount.scale) * d)
  },
})

/**
 * Milli as OPA has it: `big.Rat.SetFloat64(0.001)`, the double nearest 1/1000, which is
 * 1152921504606847 / 2^60, a little more than 1/1000 (it shows from about 2.4e9 milli on).
 */
const MILLI: readonly [bigint, bigint] = [1152921504606847n, 2n ** 60n]

/**
 * The number OPA makes of the rational `num / den`: the integer when it is one, otherwise the
 * text of `big.Rat.FloatString(10)` (ten decimals, the last rounded half away from zero), which
 * OPA keeps as the number's text (`1.5000000000`).
 */
function ratNumber(num: bigint, den: bigint): RegoNumber {
  if (num % den === 0n) return numberFromBigInt(num / den)
  const neg = num < 0n
  const abs = neg ? -num : num
  const scale = 10n ** 10n
  let whole = abs / den
  const scaled = (abs % den) * scale
  let frac = scaled / den
  if ((scaled % den) * 2n >= den) frac += 1n
  if (frac >= scale) {
    whole += 1n
    frac -= scale
  }
  return parseNumber(`${neg ? '-' : ''}${whole}.${frac.toString().padStart(10, '0')}`) as RegoNumber
}

const BYTE_UNITS: Readonly<Record<string, bigint>> = {
  '': 1n,
  kb: SI(3),
  k: SI(3),
  kib: IEC(10),
  ki: IEC(10),
  mb: SI(6),
  m: SI(6),
  mib: IEC(20),
  mi: IEC(20),
  gb: SI(9),
  g: SI(9),
  gib: IEC(30),
  gi: IEC(30),
  tb: SI(12),
  t: SI(12),
  tib: IEC(40),
  ti: IEC(40),
  pb: SI(15),
  p: SI(15),
  pib: IEC(50),
  pi: IEC(50),
  eb: SI(18),
  e: SI(18),
  eib: IEC(60),
  ei: IEC(60),
}

export const unitsParseBytes = defineBuiltin({
  name: 'units.parse_bytes',
  category: 'units',
  description:
    'Converts strings like "10GB", "5K", "4mb", and the like into an integer number of bytes. Supports standard byte units (e.g., KB, KiB, etc.) where KB, MB, etc. are treated as decimal multiples of 1000, and KiB, MiB, etc. as binary multiples of 1024; the result is truncated to an integer.',
  args: [t.named('x', t.string, 'the byte unit to parse')],
  result: t.named('y', t.number, 'the parsed number'),
  impl: (_ctx, [x]) => {
    const [num, unit] = prepare(stringOperand(x, 1), true, BYTES_WORDING)
    const factor = BYTE_UNITS[unit]
    if (factor === undefined) throw new BuiltinError(`byte unit ${unit} not recognized`)
    const amount = parseAmount(num, BYTES_WORDING)
    // Not exact: OPA multiplies 64-bit big.Floats here (units.parse uses big.Rat), so
    // "3.9999999999999999999" is 4 bytes and "10000000000eb" is not 10^28.
    return numberFromBigInt(truncatedFloatProduct(new Decimal(amount.num, -amount.scale), factor))
  },
})

/** The units built-ins. */
export const UNITS_BUILTINS = [unitsParse, unitsParseBytes] as const
