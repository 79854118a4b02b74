/**
 * Literals inside actions, read as Go reads them: numbers as parse.NumberNode classifies them
 * (int, uint, float at once where the value fits; strconv's base prefixes and underscores) and
 * quoted strings and character constants through strconv's unquoting rules.
 */

import { goQuote } from './errors.js'

/** A number constant: the kinds it can be used as, as Go's parse.NumberNode records them. */
export interface NumberInfo {
  isInt: boolean
  isUint: boolean
  isFloat: boolean
  isComplex: boolean
  int: bigint
  uint: bigint
  float: number
}

const INT64_MIN = -(1n << 63n)
const INT64_MAX = (1n << 63n) - 1n
const UINT64_MAX = (1n << 64n) - 1n

/** strconv.ParseInt/ParseUint with base 0: the value, or undefined when the syntax is wrong. */
function parseIntBase0(text: string): bigint | undefined {
  let s = text
  let neg = false
  if (s[0] === '+' || s[0] === '-') {
    neg = s[0] === '-'
    s = s.slice(1)
  }
  let base = 10
  let prefixed = false
  if (s.length > 1 && s[0] === '0') {
    const p = (s[1] as string).toLowerCase()
    if (p === 'x' || p === 'o' || p === 'b') {
      base = p === 'x' ? 16 : p === 'o' ? 8 : 2
      s = s.slice(2)
      prefixed = true
    } else {
      base = 8
      s = s.slice(1)
      prefixed = true
    }
  }
  // Underscores only with base 0 and a prefix or leading 0, between digits (strconv.underscoreOK).
  if (s.includes('_')) {
    if (/__|_$/.test(s) || (s.startsWith('_') && !prefixed)) return undefined
    s = s.replace(/_/g, '')
  }
  if (s === '') return prefixed && base === 8 ? 0n : undefined
  const digits = '0123456789abcdef'.slice(0, base)
  let v = 0n
  for (const c of s.toLowerCase()) {
    const d = digits.indexOf(c)
    if (d < 0) return undefined
    v = v * BigInt(base) + BigInt(d)
  }
  return neg ? -v : v
}

/** strconv.ParseFloat(text, 64): decimal and hex floats, underscores only after a base prefix. */
function parseFloat64(text: string): number | undefined {
  let s = text
  if (/^[+-]?0[xX]/.test(s)) {
    const m = /^([+-]?)0[xX]([0-9a-fA-F_]*)(?:\.([0-9a-fA-F_]*))?[pP]([+-]?[0-9_]+)$/.exec(s)
    if (!m) return undefined
    const int = (m[2] ?? '').replace(/_/g, '')
    const frac = (m[3] ?? '').replace(/_/g, '')
    if (int === '' && frac === '') return undefined
    const mant = BigInt(`0x${int}${frac}` === '0x' ? '0x0' : `0x${int}${frac}`)
    const exp = Number((m[4] as string).replace(/_/g, '')) - 4 * frac.length
    const v = Number(mant) * 2 ** exp
    return m[1] === '-' ? -v : v
  }
  if (s.includes('_')) return undefined
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(s)) return undefined
  s = s.replace(/^\+/, '')
  const v = Number(s)
  return Number.isFinite(v) ? v : undefined
}

/** parse.Tree.newNumber for number items: throws the message Go reports for a bad one. */
export function parseNumber(text: string, type: 'number' | 'charConstant' | 'complex'): NumberInfo {
  const n: NumberInfo = {
    isInt: false,
    isUint: false,
    isFloat: false,
    isComplex: false,
    int: 0n,
    uint: 0n,
    float: 0,
  }
  if (type === 'charConstant') {
    const [rune, tail] = unquoteChar(text.slice(1), "'")
    if (tail !== "'") throw new Error(`malformed character constant: ${text}`)
    n.isInt = n.isUint = n.isFloat = true
    n.int = n.uint = BigInt(rune)
    n.float = rune
    return n
  }
  if (type === 'complex' || text.endsWith('i')) {
    // Complex constants are outside what a template over JSON data can use (see docs).
    throw new Error(`complex constants are not supported: ${text}`)
  }
  const u = parseIntBase0(text)
  if (u !== undefined && u >= 0n && u <= UINT64_MAX && !text.startsWith('-') && !text.startsWith('+')) {
    n.isUint = true
    n.uint = u
  }
  if (u !== undefined && u >= INT64_MIN && u <= INT64_MAX) {
    n.isInt = true
    n.int = u
    if (u === 0n) {
      n.isUint = true
      n.uint = 0n
    }
  }
  if (n.isInt) {
    n.isFloat = true
    n.float = Number(n.int)
  } else if (n.isUint) {
    n.isFloat = true
    n.float = Number(n.uint)
  } else {
    const f = parseFloat64(text)
    if (f !== undefined) {
      if (!/[.eEpP]/.test(text)) throw new Error(`integer overflow: ${goQuote(text)}`)
      n.isFloat = true
      n.float = f
      if (Number.isInteger(f) && f >= -(2 ** 63) && f < 2 ** 63) {
        n.isInt = true
        n.int = BigInt(f)
      }
      if (Number.isInteger(f) && f >= 0 && f < 2 ** 64) {
        n.isUint = true
        n.uint = BigInt(f)
      }
    }
  }
  if (!n.isInt && !n.isUint && !n.isFloat) throw new Error(`illegal number syntax: ${goQuote(text)}`)
  return n
}

const SIMPLE_ESCAPES: Readonly<Record<string, number>> = {
  a: 7,
  b: 8,
  f: 12,
  n: 10,
  r: 13,
  t: 9,
  v: 11,
  '\\': 92,
}

/** strconv.UnquoteChar: the first (possibly escaped) rune of `s` and what follows it. */
function unquoteChar(s: string, quote: string): [number, string] {
  const c = s.codePointAt(0)
  if (c === undefined) throw new Error('invalid syntax')
  const ch = String.fromCodePoint(c)
  if (ch === quote && (quote === "'" || quote === '"')) throw new Error('invalid syntax')
  if (ch !== '\\') return [c, s.slice(ch.length)]
  const e = s[1]
  if (e === undefined) throw new Error('invalid syntax')
  const simple = SIMPLE_ESCAPES[e]
  if (simple !== undefined) return [simple, s.slice(2)]
  if (e === "'" || e === '"') {
    if (e !== quote) throw new Error('invalid syntax')
    return [e.charCodeAt(0), s.slice(2)]
  }
  const hexLen = e === 'x' ? 2 : e === 'u' ? 4 : e === 'U' ? 8 : 0
  if (hexLen) {
    const h = s.slice(2, 2 + hexLen)
    if (h.length < hexLen || !/^[0-9a-fA-F]+$/.test(h)) throw new Error('invalid syntax')
    const v = Number.parseInt(h, 16)
    if (e !== 'x' && (v > 0x10ffff || (v >= 0xd800 && v <= 0xdfff))) throw new Error('invalid syntax')
    return [v, s.slice(2 + hexLen)]
  }
  if (e >= '0' && e <= '7') {
    const o = s.slice(1, 4)
    if (!/^[0-7]{3}$/.test(o)) throw new Error('invalid syntax')
    const v = Number.parseInt(o, 8)
    if (v > 255) throw new Error('invalid syntax')
    return [v, s.slice(4)]
  }
  throw new Error('invalid syntax')
}

/** strconv.Unquote of a string item (`"…"` or a raw `` `…` ``, whose carriage returns Go drops). */
export function unquote(text: string): string {
  if (text.startsWith('`')) return text.slice(1, -1).replace(/\r/g, '')
  let s = text.slice(1, -1)
  let out = ''
  while (s.length > 0) {
    const [c, rest] = unquoteChar(s, '"')
    out += String.fromCodePoint(c)
    s = rest
  }
  return out
}
