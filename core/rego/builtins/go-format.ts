/**
 * Go's `fmt.Sprintf` for the argument kinds OPA's `sprintf` passes: integers (int64 or big.Int),
 * float64s and strings (every other value arrives as its Rego text). Verbs, flags, width and
 * precision follow Go, including its `%!d(string=x)` / `%!d(MISSING)` / `%!(EXTRA ...)` markers.
 * `strings.render_template` (text-template/) also passes what Go's templates hold: booleans, nil,
 * `json.Number` (a string type with a String method), slices and maps, formatted element by
 * element as fmt's printValue does.
 */

import { goQuote, goQuoteRune, goRune } from './go-quote.js'

/** One formatted argument. */
export type GoArg =
  | { kind: 'int'; value: bigint; big: boolean; type?: string }
  | { kind: 'float'; value: number }
  | { kind: 'string'; value: string }
  | { kind: 'bool'; value: boolean }
  | { kind: 'nil' }
  /** A string-kinded named type with a String method (`json.Number`). */
  | { kind: 'stringer'; type: string; value: string }
  /** A slice; a `nil` element prints `<nil>` whatever the verb (an interface holding nil). */
  | { kind: 'slice'; type: string; elems: readonly GoArg[] }
  /** A map, entries already in fmt's sorted key order. */
  | { kind: 'map'; type: string; entries: ReadonlyArray<readonly [GoArg, GoArg]> }

interface Spec {
  minus: boolean
  plus: boolean
  sharp: boolean
  space: boolean
  zero: boolean
  width?: number
  prec?: number
}

function pad(s: string, spec: Spec, numeric: boolean): string {
  const width = spec.width ?? 0
  const len = [...s].length
  if (len >= width) return s
  const fill = width - len
  if (spec.minus) return s + ' '.repeat(fill)
  if (spec.zero && numeric) {
    const sign = /^[+\- ]/.test(s) ? (s[0] as string) : ''
    const rest = sign ? s.slice(1) : s
    const prefix = /^0[xXbo]/.test(rest) && spec.sharp ? rest.slice(0, 2) : ''
    return sign + prefix + '0'.repeat(fill) + rest.slice(prefix.length)
  }
  return ' '.repeat(fill) + s
}

function signed(neg: boolean, body: string, spec: Spec): string {
  if (neg) return `-${body}`
  if (spec.plus) return `+${body}`
  if (spec.space) return ` ${body}`
  return body
}

function typeLabel(arg: GoArg): string {
  switch (arg.kind) {
    case 'int':
      return arg.type ?? (arg.big ? '*big.Int' : 'int')
    case 'float':
      return 'float64'
    case 'string':
      return 'string'
    case 'bool':
      return 'bool'
    case 'nil':
      return '<nil>'
    default:
      return arg.type
  }
}

function plainValue(arg: GoArg): string {
  switch (arg.kind) {
    case 'int':
      return arg.value.toString()
    case 'float':
      return formatFloat(arg.value, 'g', undefined)
    case 'bool':
      return arg.value ? 'true' : 'false'
    case 'nil':
      return '<nil>'
    case 'slice':
    case 'map':
      return formatArg(arg, 'v', { minus: false, plus: false, sharp: false, space: false, zero: false })
    default:
      return arg.value
  }
}

function badVerb(verb: string, arg: GoArg): string {
  if (arg.kind === 'nil') return `%!${verb}(<nil>)`
  const label = arg.kind === 'int' && arg.big ? 'big.Int' : typeLabel(arg)
  return `%!${verb}(${label}=${plainValue(arg)})`
}

/** Go-style exponent: at least two digits (`e+06`). */
function goExponent(s: string): string {
  return s.replace(/e([+-])(\d)$/, 'e$10$2')
}

/**
 * Formats a float as Go does for %e, %f and %g (%v is %g); `prec` undefined means Go's default
 * (shortest digits for %g, 6 decimals for %e and %f).
 */
export function formatFloat(x: number, verb: 'e' | 'f' | 'g', prec: number | undefined): string {
  if (Number.isNaN(x)) return 'NaN'
  if (!Number.isFinite(x)) return x > 0 ? '+Inf' : '-Inf'
  switch (verb) {
    case 'e':
      return goExponent(x.toExponential(prec ?? 6))
    case 'f':
      return prec === undefined ? x.toFixed(6) : x.toFixed(Math.min(prec, 100))
    default:
      return formatG(x, prec)
  }
}

/** Go's %g: shortest digits (or `prec` significant ones), %e form for exponents < -4 or >= precision. */
function formatG(x: number, prec: number | undefined): string {
  if (x === 0) return Object.is(x, -0) ? '-0' : '0'
  const neg = x < 0
  const exp10 =
    prec === undefined ? Math.abs(x).toExponential() : Math.abs(x).toExponential(Math.max(prec, 1) - 1)
  const [mant = '', e = '0'] = exp10.split('e')
  const digits = mant.replace('.', '').replace(/0+$/, '') || '0'
  const dp = Number(e) + 1
  let eprec = prec === undefined ? 6 : Math.max(prec, 1)
  if (prec !== undefined && eprec > digits.length && digits.length >= dp) eprec = digits.length
  const exp = dp - 1
  let body: string
  if (exp < -4 || exp >= eprec) {
    const m = digits.length > 1 ? `${digits[0]}.${digits.slice(1)}` : digits
    body = `${m}e${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`
  } else if (dp <= 0) body = `0.${'0'.repeat(-dp)}${digits}`
  else if (dp >= digits.length) body = digits + '0'.repeat(dp - digits.length)
  else body = `${digits.slice(0, dp)}.${digits.slice(dp)}`
  return neg ? `-${body}` : body
}

function formatInt(n: bigint, big: boolean, verb: string, spec: Spec): string | undefined {
  // *big.Int formats %s like %d.
  if (big && verb === 's') verb = 'd'
  const neg = n < 0n
  const mag = neg ? -n : n
  let body: string
  switch (verb) {
    case 'd':
    case 'v':
      body = mag.toString()
      break
    case 'b':
      body = mag.toString(2)
      break
    case 'o':
      body = (spec.sharp ? '0' : '') + mag.toString(8)
      break
    case 'O':
      body = `0o${mag.toString(8)}`
      break
    case 'x':
      body = (spec.sharp ? '0x' : '') + mag.toString(16)
      break
    case 'X':
      body = (spec.sharp ? '0X' : '') + mag.toString(16).toUpperCase()
      break
    case 'c':
      return pad(String.fromCodePoint(goRune(n)), spec, false)
    case 'q':
      return pad(goQuoteRune(n), spec, false)
    case 'U':
      return pad(`U+${mag.toString(16).toUpperCase().padStart(4, '0')}`, spec, false)
    default:
      return undefined
  }
  if (spec.prec !== undefined) body = body.padStart(spec.prec, '0')
  return pad(signed(neg, body, spec), spec, spec.prec === undefined)
}

/** The sign, unbiased binary exponent and 53-bit mantissa of a finite double (strconv's view). */
function floatBits(x: number): { mant: bigint; exp: number } {
  const view = new DataView(new ArrayBuffer(8))
  view.setFloat64(0, x)
  const bits = view.getBigUint64(0)
  let exp = Number((bits >> 52n) & 0x7ffn)
  let mant = bits & ((1n << 52n) - 1n)
  if (exp === 0) exp++
  else mant |= 1n << 52n
  return { mant, exp: exp - 1023 }
}

/** strconv.FormatFloat(|x|, 'x', prec, 64): `0x1.fep+07` (prec undefined: shortest). */
function hexFloat(x: number, prec: number | undefined, upper: boolean): string {
  let { mant, exp } = floatBits(Math.abs(x))
  if (mant === 0n) exp = 0
  const ONE = 1n << 60n
  mant <<= 8n
  while (mant !== 0n && (mant & ONE) === 0n) {
    mant <<= 1n
    exp--
  }
  if (prec !== undefined && prec < 15) {
    const shift = BigInt(prec * 4)
    const extra = (mant << shift) & (ONE - 1n)
    mant >>= 60n - shift
    if ((extra | (mant & 1n)) > 1n << 59n) mant++
    mant <<= 60n - shift
    if ((mant & (1n << 61n)) !== 0n) {
      mant >>= 1n
      exp++
    }
  }
  const digits = '0123456789abcdef'
  let out = `0x${(mant >> 60n) & 1n}`
  mant = (mant << 4n) & ((1n << 64n) - 1n)
  // At most 13 hex digits are non-zero; a longer precision is zeros (charged by paddingChars).
  const frac = (n: number): string => {
    let s = ''
    for (let i = 0; i < n && mant !== 0n; i++) {
      s += digits[Number((mant >> 60n) & 15n)]
      mant = (mant << 4n) & ((1n << 64n) - 1n)
    }
    return s.padEnd(n, '0')
  }
  if (prec === undefined && mant !== 0n) {
    let s = ''
    while (mant !== 0n) s += frac(1)
    out += `.${s}`
  } else if (prec !== undefined && prec > 0) out += `.${frac(prec)}`
  out += `p${exp < 0 ? '-' : '+'}${String(Math.abs(exp)).padStart(2, '0')}`
  return upper ? out.toUpperCase() : out
}

/** strconv.FormatFloat(|x|, 'b', -1, 64): `4503599627370496p-52`. */
function binaryFloat(x: number): string {
  const { mant, exp } = floatBits(Math.abs(x))
  return `${mant}p${exp - 52 < 0 ? '-' : '+'}${Math.abs(exp - 52)}`
}

function formatFloatVerb(x: number, verb: string, spec: Spec): string | undefined {
  let body: string
  switch (verb) {
    case 'x':
    case 'X':
      body = hexFloat(x, spec.prec, verb === 'X')
      break
    case 'b':
      body = binaryFloat(x)
      break
    case 'v':
    case 'g':
      body = formatFloat(Math.abs(x), 'g', spec.prec)
      break
    case 'G':
      body = formatFloat(Math.abs(x), 'g', spec.prec).toUpperCase()
      break
    case 'e':
      body = formatFloat(Math.abs(x), 'e', spec.prec)
      break
    case 'E':
      body = formatFloat(Math.abs(x), 'e', spec.prec).toUpperCase()
      break
    case 'f':
    case 'F':
      body = formatFloat(Math.abs(x), 'f', spec.prec)
      break
    default:
      return undefined
  }
  return pad(signed(x < 0 || Object.is(x, -0), body, spec), spec, true)
}

function formatString(s: string, verb: string, spec: Spec): string | undefined {
  const cut = spec.prec === undefined ? s : [...s].slice(0, spec.prec).join('')
  switch (verb) {
    case 'v':
    case 's':
      return pad(cut, spec, false)
    case 'q':
      return pad(goQuote(cut), spec, false)
    case 'x':
    case 'X': {
      const hex = Buffer.from(cut, 'utf8').toString('hex')
      return pad(verb === 'X' ? hex.toUpperCase() : hex, spec, false)
    }
    default:
      return undefined
  }
}

/** An element inside a slice or map: a nil interface prints `<nil>` for every verb. */
function formatElem(arg: GoArg, verb: string, spec: Spec): string {
  return arg.kind === 'nil' ? pad('<nil>', spec, false) : formatArg(arg, verb, spec)
}

function formatArg(arg: GoArg, verb: string, spec: Spec): string {
  let out: string | undefined
  switch (arg.kind) {
    case 'int':
      out = formatInt(arg.value, arg.big, verb, spec)
      break
    case 'float':
      out = formatFloatVerb(arg.value, verb, spec)
      break
    case 'string':
      out = formatString(arg.value, verb, spec)
      break
    case 'stringer':
      // fmt calls String() for %v %s %x %X %q only; other verbs see a bad string verb.
      out = 'vsxXq'.includes(verb) ? formatString(arg.value, verb, spec) : undefined
      break
    case 'bool':
      out = verb === 'v' || verb === 't' ? pad(arg.value ? 'true' : 'false', spec, false) : undefined
      break
    case 'nil':
      out = verb === 'v' ? pad('<nil>', spec, false) : undefined
      break
    case 'slice':
      return `[${arg.elems.map((e) => formatElem(e, verb, spec)).join(' ')}]`
    case 'map':
      return `map[${arg.entries.map(([k, v]) => `${formatElem(k, verb, spec)}:${formatElem(v, verb, spec)}`).join(' ')}]`
  }
  return out ?? badVerb(verb, arg)
}

/**
 * An upper bound of the padding `*` widths and precisions take from `args`: an int argument each,
 * at most 1e6 as Go caps them (`%*d` with 5 pads to 5).
 */
export function starPaddingChars(format: string, args: readonly GoArg[]): number {
  if (!format.includes('*')) return 0
  let total = 0
  for (const a of args) {
    if (a.kind === 'int' && !a.big) total += Math.min(Math.abs(Number(a.value)), 1_000_000)
  }
  return total
}

/**
 * An upper bound of the padding the widths and precisions of `format` ask for (`%08d`: 8), so a
 * caller can charge it before formatting (`%999999999d` is a gigabyte of spaces).
 */
export function paddingChars(format: string): number {
  let total = 0
  for (const m of format.matchAll(/%[-+# 0]*(?:\[\d+\])?(\d*)(?:\.(\d*))?/g))
    total += Number(m[1] || 0) + Number(m[2] || 0)
  return total
}

/**
 * `fmt.Sprintf(format, args...)`.
 *
 * @example
 * goSprintf('hi %02X', [{ kind: 'int', value: 127n, big: false }]) // 'hi 7F'
 */
export function goSprintf(format: string, args: readonly GoArg[]): string {
  let out = ''
  let argIndex = 0
  // Set once an explicit index (`%[2]d`) is seen: Go then no longer reports unused arguments.
  let reordered = false
  let i = 0
  // fmt's argNumber: a bracketed one-based index before the width, the precision or the verb.
  const argNumber = (): { found: boolean; good: boolean } => {
    if (format[i] !== '[') return { found: false, good: true }
    reordered = true
    const rest = format.slice(i)
    const close = rest.length < 3 ? -1 : rest.indexOf(']', 1)
    if (close < 0) {
      i++
      return { found: false, good: false }
    }
    i += close + 1
    const digits = rest.slice(1, close)
    if (!/^\d{1,7}$/.test(digits) || Number(digits) > 1_000_000) return { found: false, good: false }
    const index = Number(digits) - 1
    if (index < 0 || index >= args.length) return { found: true, good: false }
    argIndex = index
    return { found: true, good: true }
  }
  // fmt's intFromArg: a `*` takes an int argument (within ±1e6) as width or precision.
  const intFromArg = (): number | undefined => {
    const arg = args[argIndex]
    if (arg === undefined) return undefined
    argIndex++
    if (arg.kind !== 'int' || arg.big || arg.value > 1_000_000n || arg.value < -1_000_000n) return undefined
    return Number(arg.value)
  }
  while (i < format.length) {
    const c = format[i] as string
    if (c !== '%') {
      out += c
      i++
      continue
    }
    i++
    let goodArgNum = true
    const spec: Spec = { minus: false, plus: false, sharp: false, space: false, zero: false }
    for (; i < format.length; i++) {
      const f = format[i]
      if (f === '-') spec.minus = true
      else if (f === '+') spec.plus = true
      else if (f === '#') spec.sharp = true
      else if (f === ' ') spec.space = true
      else if (f === '0') spec.zero = !spec.minus
      else break
    }
    let index = argNumber()
    goodArgNum &&= index.good
    let afterIndex = index.found
    if (format[i] === '*') {
      i++
      const w = intFromArg()
      if (w === undefined) out += '%!(BADWIDTH)'
      else if (w < 0) {
        spec.width = -w
        spec.minus = true
        spec.zero = false
      } else spec.width = w
      afterIndex = false
    } else {
      const width = /^\d+/.exec(format.slice(i))
      if (width) {
        spec.width = Number(width[0])
        i += width[0].length
        if (afterIndex) goodArgNum = false
      }
    }
    if (format[i] === '.' && i + 1 < format.length) {
      i++
      if (afterIndex) goodArgNum = false
      index = argNumber()
      goodArgNum &&= index.good
      afterIndex = index.found
      if (format[i] === '*') {
        i++
        const p = intFromArg()
        if (p === undefined || p < 0) out += '%!(BADPREC)'
        else spec.prec = p
        afterIndex = false
      } else {
        const prec = /^\d+/.exec(format.slice(i))
        spec.prec = prec ? Number(prec[0]) : 0
        if (prec) i += prec[0].length
      }
    }
    if (!afterIndex) {
      index = argNumber()
      goodArgNum &&= index.good
    }
    if (i >= format.length) {
      out += '%!(NOVERB)'
      break
    }
    const verb = String.fromCodePoint(format.codePointAt(i) as number)
    i += verb.length
    if (verb === '%') {
      out += '%'
      continue
    }
    if (!goodArgNum) {
      out += `%!${verb}(BADINDEX)`
      continue
    }
    const arg = args[argIndex]
    if (arg === undefined) {
      out += `%!${verb}(MISSING)`
      continue
    }
    argIndex++
    out += verb === 'T' ? pad(typeLabel(arg), spec, false) : formatArg(arg, verb, spec)
  }
  if (!reordered && argIndex < args.length) {
    out += `%!(EXTRA ${args
      .slice(argIndex)
      .map((a) => (a.kind === 'nil' ? '<nil>' : `${typeLabel(a)}=${plainValue(a)}`))
      .join(', ')})`
  }
  return out
}
