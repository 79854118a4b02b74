/**
 * How go-yaml v2 (the reader under sigs.k8s.io/yaml, hence OPA's `yaml.unmarshal`, bundle data and
 * YAML request bodies) reads a plain scalar as a number. It is not the YAML 1.1 spec: no base-60
 * numbers (`1:20` stays a string), Go's own integer prefixes (`0o17`, `0X1F`, `0B1`), integers past
 * 64 bits become floats, and a float out of range (`1e400`) stays a string.
 *
 * go-yaml's resolve(): a scalar starting with a digit or a sign has its `_` removed, then is an int
 * if strconv.ParseInt(s, 0, 64) or ParseUint(s, 0, 64) reads it, else a float if it matches
 * yamlStyleFloat and ParseFloat reads it without error. One starting with `.` is a float if
 * ParseFloat reads it (no `_` there). Anything else is not a number.
 */

const INT64_MIN = -(2n ** 63n)
const INT64_MAX = 2n ** 63n - 1n
const UINT64_MAX = 2n ** 64n - 1n

/** go-yaml's yamlStyleFloat, applied to the text without its `_`. */
const YAML_STYLE_FLOAT = /^[-+]?(?:\.[0-9]+|[0-9]+(?:\.[0-9]*)?)(?:[eE][-+]?[0-9]+)?$/

/** What ParseFloat reads in a text that starts with `.` (decimal only: Go allows no `_` there). */
const DOT_FLOAT = /^\.[0-9]+(?:[eE][-+]?[0-9]+)?$/

/** The digits of Go's base-0 integer syntax, after the sign: `0b…`, `0o…`, `0x…`, `0…` (octal), or decimal. */
const GO_BASE0_INT = /^(?:0[bB][01]+|0[oO][0-7]+|0[xX][0-9a-fA-F]+|0[0-7]*|[1-9][0-9]*)$/

/** go-yaml reads a number only from a scalar whose first character is a digit or a sign. */
const startsNumeric = (text: string): boolean => /^[-+0-9]/.test(text)

/**
 * The integer go-yaml reads from `text` (as bigint when `asBigInt`), or undefined when it reads none:
 * ParseInt for the signed 64-bit range, ParseUint (which takes no sign) up to 2^64-1.
 */
export function goYamlInt(text: string, asBigInt: boolean): number | bigint | undefined {
  if (!startsNumeric(text)) return undefined
  const plain = text.replace(/_/g, '')
  const sign = plain[0] === '-' || plain[0] === '+' ? plain[0] : ''
  const digits = plain.substring(sign.length)
  if (!GO_BASE0_INT.test(digits)) return undefined
  // BigInt reads 0b/0o/0x (either case); a bare leading 0 is octal in Go, decimal in BigInt.
  const magnitude = /^0[0-7]+$/.test(digits) ? BigInt(`0o${digits.substring(1)}`) : BigInt(digits)
  const n = sign === '-' ? -magnitude : magnitude
  const fits = (n >= INT64_MIN && n <= INT64_MAX) || (sign === '' && n <= UINT64_MAX)
  if (!fits) return undefined
  return asBigInt ? n : Number(n)
}

/** The float go-yaml reads from `text` when it is not an integer, or undefined. */
export function goYamlFloat(text: string): number | undefined {
  let plain: string
  if (text.startsWith('.')) {
    if (!DOT_FLOAT.test(text)) return undefined
    plain = text
  } else {
    if (!startsNumeric(text)) return undefined
    plain = text.replace(/_/g, '')
    if (!YAML_STYLE_FLOAT.test(plain)) return undefined
  }
  const value = Number.parseFloat(plain)
  // ParseFloat fails with ErrRange past float64's range; go-yaml then keeps the text as a string.
  return Number.isFinite(value) ? value : undefined
}
