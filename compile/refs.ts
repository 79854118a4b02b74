/**
 * Refs the request names as text: the filter rule's URL path (`filters/include` is `data.filters.include`),
 * `unknowns` (`input.fruits`) and the mask rule (`data.filters.masks`). They are a small subset of Rego
 * (a var head, then `.name` or `[scalar]` parts), parsed here so the endpoint needs no full parser for them.
 */
import type { RefTerm, Term } from '../core/rego/syntax/ast.js'
import { refToString } from './print.js'

/** A ref text that is not valid; `message` says where and why. */
export class RefSyntaxError extends Error {
  override name = 'RefSyntaxError'
}

const IDENT = /[A-Za-z_][A-Za-z0-9_]*/y
const NUMBER = /-?(?:0|[1-9][0-9]*)(?:\.[0-9]+)?(?:[eE][+-]?[0-9]+)?/y
const JSON_STRING = /"(?:[^"\\\u0000-\u001f]|\\(?:["\\/bfnrt]|u[0-9a-fA-F]{4}))*"/y

/**
 * Parses `input.fruits`, `data.a["b-c"][0]` or `input` into a ref term.
 * @throws RefSyntaxError naming the column of the first character that does not fit.
 */
export function parseRefText(text: string): RefTerm {
  const s = text.trim()
  const parts: Term[] = []
  let pos = 0
  const fail = (what: string): never => {
    throw new RefSyntaxError(`1:${pos + 1}: ${what} in ref ${JSON.stringify(s)}`)
  }
  const head = matchAt(IDENT, s, pos)
  if (!head) fail('expected a variable name')
  parts.push({ type: 'var', value: head! })
  pos += head!.length
  while (pos < s.length) {
    const ch = s[pos]
    if (ch === '.') {
      pos++
      const name = matchAt(IDENT, s, pos)
      if (!name) fail('expected a name after "."')
      parts.push({ type: 'string', value: name! })
      pos += name!.length
    } else if (ch === '[') {
      pos++
      const [part, length] = bracketPart(s, pos, fail)
      parts.push(part)
      pos += length
      if (s[pos] !== ']') fail('expected "]"')
      pos++
    } else {
      fail(`unexpected ${JSON.stringify(ch)}`)
    }
  }
  return { type: 'ref', value: parts }
}

/** The term inside `[...]` starting at `pos`, and how many characters it took. */
function bracketPart(s: string, pos: number, fail: (what: string) => never): [Term, number] {
  const str = matchAt(JSON_STRING, s, pos)
  if (str) return [{ type: 'string', value: JSON.parse(str) as string }, str.length]
  const num = matchAt(NUMBER, s, pos)
  if (num) return [{ type: 'number', value: num }, num.length]
  const name = matchAt(IDENT, s, pos)
  if (name === 'true' || name === 'false') return [{ type: 'boolean', value: name === 'true' }, name.length]
  if (name === 'null') return [{ type: 'null', value: null }, name.length]
  if (name) return [{ type: 'var', value: name }, name.length]
  return fail('expected a string, number or variable inside "[...]"')
}

function matchAt(re: RegExp, s: string, pos: number): string | undefined {
  re.lastIndex = pos
  return re.exec(s)?.[0]
}

/**
 * The ref of a `/v1/compile/{path}` URL path: segments URL-unescaped, all-digit segments as numbers.
 * @throws RefSyntaxError for an empty path, an empty segment or a bad escape.
 * @example pathToRef('filters/include') // data.filters.include
 */
export function pathToRef(path: string): RefTerm {
  const trimmed = path.replace(/^\/+|\/+$/g, '')
  if (trimmed === '') throw new RefSyntaxError('empty path')
  const parts: Term[] = [{ type: 'var', value: 'data' }]
  for (const raw of trimmed.split('/')) {
    let segment: string
    try {
      segment = decodeURIComponent(raw)
    } catch {
      throw new RefSyntaxError(`bad escape in path segment ${JSON.stringify(raw)}`)
    }
    if (segment === '') throw new RefSyntaxError(`empty segment in path ${JSON.stringify(path)}`)
    parts.push(
      /^[0-9]+$/.test(segment) ? { type: 'number', value: segment } : { type: 'string', value: segment },
    )
  }
  return { type: 'ref', value: parts }
}

/** The Rego text of a ref (`data.filters.include`). */
export function refText(ref: RefTerm): string {
  return refToString(ref.value)
}

/** The head var of a ref (`input`, `data`), or undefined when the head is not a var. */
export function refHead(ref: RefTerm): string | undefined {
  const head = ref.value[0]
  return head?.type === 'var' ? head.value : undefined
}

/** True when `ref` starts with every part of `prefix` (compared by type and value). */
export function refHasPrefix(ref: readonly Term[], prefix: readonly Term[]): boolean {
  if (prefix.length > ref.length) return false
  return prefix.every((p, i) => sameScalarTerm(p, ref[i]))
}

/** Equality of var/string/number/boolean/null terms (ref parts). */
export function sameScalarTerm(a: Term | undefined, b: Term | undefined): boolean {
  if (!a || !b || a.type !== b.type) return false
  switch (a.type) {
    case 'var':
    case 'string':
    case 'number':
    case 'boolean':
    case 'null':
      return a.value === b.value
    default:
      return false
  }
}
