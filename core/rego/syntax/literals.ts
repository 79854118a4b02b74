/**
 * Helpers for literal terms: template-string unescaping, the number size bound, and operator names.
 */
import type { Term } from './ast.js'

/** The dotted name of an operator ref (`internal.member_2`), or undefined. */
export function operatorText(term: Term | undefined): string | undefined {
  if (term?.type !== 'ref') return undefined
  let out = ''
  for (const [i, part] of term.value.entries()) {
    if (i === 0 && part.type === 'var') out = part.value
    else if (i > 0 && part.type === 'string') out += `.${part.value}`
    else return undefined
  }
  return out
}

/** True for the scalar term types (string, number, boolean, null). */
export function isScalarType(type: string): boolean {
  return type === 'string' || type === 'number' || type === 'boolean' || type === 'null'
}

/** True when a number literal's decimal exponent does not fit 32 bits (OPA's `invalid float`). */
export function exponentOverflows(lexeme: string): boolean {
  const e = lexeme.search(/[eE]/)
  return e !== -1 && Math.abs(Number(lexeme.slice(e + 1))) > 2147483647
}

/**
 * OPA rejects numbers whose binary exponent exceeds 1e5 (to bound big-number costs); this checks
 * the same bound from the decimal exponent and digit count.
 */
export function numberTooBig(lexeme: string): boolean {
  let e = lexeme.indexOf('e')
  if (e === -1) e = lexeme.indexOf('E')
  if (e === -1) return lexeme.length > 30000
  const exp = Number(lexeme.slice(e + 1))
  const mantissa = lexeme.slice(0, e).replace(/^[-.]+/, '')
  const intDigits = mantissa.includes('.') ? mantissa.indexOf('.') : mantissa.length
  const magnitude = exp + intDigits
  return !Number.isFinite(exp) || Math.abs(magnitude) * Math.LOG2E * Math.LN10 > 1e5
}

/** Unescapes a quoted template-string part: JSON escapes plus `\{`. Undefined when malformed. */
export function unescapeTemplate(inner: string): string | undefined {
  if (!inner.includes('\\')) return inner
  let out = ''
  let chunk = 0
  for (let i = 0; i < inner.length; i++) {
    if (inner.charCodeAt(i) !== 92) continue
    out += inner.slice(chunk, i)
    const next = inner[i + 1]
    if (next === '{') {
      out += '{'
      i++
    } else if (next === 'u') {
      const hex = inner.slice(i + 2, i + 6)
      if (!/^[0-9a-fA-F]{4}$/.test(hex)) return undefined
      out += String.fromCharCode(Number.parseInt(hex, 16))
      i += 5
    } else {
      const mapped = next === undefined ? undefined : SIMPLE_ESCAPES[next]
      if (mapped === undefined) return undefined
      out += mapped
      i++
    }
    chunk = i + 1
  }
  return out + inner.slice(chunk)
}

const SIMPLE_ESCAPES: Record<string, string> = {
  '"': '"',
  '\\': '\\',
  '/': '/',
  b: '\b',
  f: '\f',
  n: '\n',
  r: '\r',
  t: '\t',
}
