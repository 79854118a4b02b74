/**
 * Go's built-in template functions (text/template funcs.go), over values.ts. Each reports failure
 * by throwing {@link FuncError} with Go's message; the executor wraps it as `error calling NAME: …`.
 * `and`, `or` and `call` are special forms the executor runs itself.
 */
import { goSprintf } from '../go-format.js'
import { htmlEscape, jsEscape, urlQueryEscape } from './escape.js'
import {
  byteLength,
  compareStrings,
  formatV,
  type GoValue,
  INVALID,
  toGoArg,
  truth,
  typeName,
  unbox,
} from './values.js'

export class FuncError extends Error {}

/** How an argument is passed: a reflect.Value, an interface{} or a Go string. */
export type ParamKind = 'value' | 'any' | 'string'

export interface TemplateFunction {
  fixed: readonly ParamKind[]
  variadic?: ParamKind
  impl(args: readonly GoValue[]): GoValue
}

type Kind = 'invalid' | 'bool' | 'int' | 'uint' | 'float' | 'string'

function basicKind(v: GoValue): Kind {
  switch (v.k) {
    case 'bool':
      return 'bool'
    case 'int':
      return 'int'
    case 'uint8':
      return 'uint'
    case 'float':
      return 'float'
    case 'string':
    case 'number':
      return 'string'
    default:
      return 'invalid'
  }
}

function num(v: GoValue): number | bigint {
  return v.k === 'int' ? v.v : v.k === 'uint8' || v.k === 'float' ? v.v : 0
}

function str(v: GoValue): string {
  return v.k === 'string' || v.k === 'number' ? v.v : ''
}

function isNilish(v: GoValue): boolean {
  return v.k === 'invalid' || (v.k === 'iface' && v.v === undefined)
}

/** A value's Go kind, as canCompare sees it. */
function reflectKind(v: GoValue): string {
  return v.k === 'number' ? 'string' : v.k === 'uint8' ? 'uint' : v.k
}

function incompatible(a: GoValue, b: GoValue): FuncError {
  return new FuncError(`incompatible types for comparison: ${typeName(a)} and ${typeName(b)}`)
}

function eq(args: readonly GoValue[]): GoValue {
  const a = unbox(args[0] ?? INVALID)
  if (args.length < 2) throw new FuncError('missing argument for comparison')
  const k1 = basicKind(a)
  for (const raw of args.slice(1)) {
    const b = unbox(raw)
    const k2 = basicKind(b)
    let same = false
    if (k1 !== k2) {
      if ((k1 === 'int' || k1 === 'uint') && (k2 === 'int' || k2 === 'uint'))
        same = BigInt(num(a)) === BigInt(num(b))
      else if (a.k !== 'invalid' && b.k !== 'invalid') throw incompatible(a, b)
    } else if (k1 === 'bool') same = a.k === 'bool' && b.k === 'bool' && a.v === b.v
    else if (k1 === 'string') same = str(a) === str(b)
    else if (k1 === 'int' || k1 === 'uint' || k1 === 'float') same = num(a) === num(b)
    else {
      // Slices, maps and nil: only nil compares; Go's slices and maps are not comparable.
      if (reflectKind(a) !== reflectKind(b) && a.k !== 'invalid' && b.k !== 'invalid')
        throw new FuncError(
          `non-comparable types ${formatS(a)}: ${typeName(a)}, ${typeName(b)}: ${formatV(b)}`,
        )
      if (isNilish(a) || isNilish(b)) same = isNilish(a) === isNilish(b)
      else throw new FuncError(`non-comparable type ${formatS(b)}: ${typeName(b)}`)
    }
    if (same) return { k: 'bool', v: true }
  }
  return { k: 'bool', v: false }
}

function formatS(v: GoValue): string {
  return goSprintf('%s', [toGoArg(v)])
}

function lt(x: GoValue, y: GoValue): boolean {
  const a = unbox(x)
  const b = unbox(y)
  const k1 = basicKind(a)
  const k2 = basicKind(b)
  if (k1 === 'invalid' || k2 === 'invalid') throw new FuncError('invalid type for comparison')
  if (k1 !== k2) {
    if ((k1 === 'int' || k1 === 'uint') && (k2 === 'int' || k2 === 'uint'))
      return BigInt(num(a)) < BigInt(num(b))
    throw incompatible(a, b)
  }
  if (k1 === 'bool') throw new FuncError('invalid type for comparison')
  if (k1 === 'string') return compareStrings(str(a), str(b)) < 0
  return num(a) < num(b)
}

function isEq(a: GoValue, b: GoValue): boolean {
  return (eq([a, b]) as { v: boolean }).v
}

function bool(v: boolean): GoValue {
  return { k: 'bool', v }
}

/** indexArg: an int or uint index within `cap`. */
function indexArg(index: GoValue, cap: number): number {
  let x: bigint
  if (index.k === 'int') x = index.v
  else if (index.k === 'uint8') x = BigInt(index.v)
  else if (index.k === 'invalid') throw new FuncError('cannot index slice/array with nil')
  else throw new FuncError(`cannot index slice/array with type ${typeName(index)}`)
  if (x < 0n || x > BigInt(cap)) throw new FuncError(`index out of range: ${x}`)
  return Number(x)
}

/** Go's indirect: a nil interface stops it. */
function isNilIface(v: GoValue): boolean {
  return v.k === 'iface' && v.v === undefined
}

function index(args: readonly GoValue[]): GoValue {
  let item = unbox(args[0] ?? INVALID)
  if (item.k === 'invalid') throw new FuncError('index of untyped nil')
  for (const raw of args.slice(1)) {
    const i = unbox(raw)
    if (isNilIface(item)) throw new FuncError('index of nil pointer')
    item = unbox(item)
    switch (item.k) {
      case 'slice': {
        const x = indexArg(i, item.v.length)
        if (x >= item.v.length) throw new FuncError('reflect: slice index out of range')
        item = { k: 'iface', v: item.v[x] }
        break
      }
      case 'string':
      case 'number': {
        const bytes = Buffer.from(item.v, 'utf8')
        const x = indexArg(i, bytes.length)
        if (x >= bytes.length) throw new FuncError('reflect: string index out of range')
        item = { k: 'uint8', v: bytes[x] as number }
        break
      }
      case 'map': {
        if (i.k === 'invalid') throw new FuncError('value is nil; should be of type string')
        if (i.k !== 'string') throw new FuncError(`value has type ${typeName(i)}; should be string`)
        item = { k: 'iface', v: item.v.get(i.v) }
        break
      }
      default:
        throw new FuncError(`can't index item of type ${typeName(item)}`)
    }
  }
  return item
}

function slice(args: readonly GoValue[]): GoValue {
  const item = unbox(args[0] ?? INVALID)
  // Unlike index, slice does not look inside interfaces for its indexes.
  const indexes = args.slice(1)
  if (item.k === 'invalid') throw new FuncError('slice of untyped nil')
  if (indexes.length > 3) throw new FuncError(`too many slice indexes: ${indexes.length}`)
  let cap: number
  let len: number
  if (item.k === 'string' || item.k === 'number') {
    if (indexes.length === 3) throw new FuncError('cannot 3-index slice a string')
    cap = len = byteLength(item.v)
  } else if (item.k === 'slice') {
    cap = item.cap
    len = item.v.length
  } else throw new FuncError(`can't slice item of type ${typeName(item)}`)
  const idx = [0, len, 0]
  indexes.forEach((x, i) => {
    idx[i] = indexArg(x, cap)
  })
  const [i, j, k] = idx as [number, number, number]
  if (i > j) throw new FuncError(`invalid slice index: ${i} > ${j}`)
  if (indexes.length === 3 && j > k) throw new FuncError(`invalid slice index: ${j} > ${k}`)
  if (item.k === 'slice') {
    const elems: Array<GoValue | undefined> = []
    for (let n = i; n < j; n++) elems.push(item.v[n])
    return { k: 'slice', v: elems, cap: (indexes.length === 3 ? k : cap) - i }
  }
  const text = Buffer.from(item.v, 'utf8').subarray(i, j).toString('utf8')
  return { k: item.k, v: text }
}

function length(args: readonly GoValue[]): GoValue {
  const v = args[0] ?? INVALID
  if (isNilIface(v)) throw new FuncError('len of nil pointer')
  const x = unbox(v)
  switch (x.k) {
    case 'slice':
      return { k: 'int', v: BigInt(x.v.length) }
    case 'map':
      return { k: 'int', v: BigInt(x.v.size) }
    case 'string':
    case 'number':
      return { k: 'int', v: BigInt(byteLength(x.v)) }
  }
  return fail(`len of type ${typeName(x)}`)
}

function fail(message: string): never {
  throw new FuncError(message)
}

/** fmt.Sprint: a space between operands when neither is a string. */
function sprint(args: readonly GoValue[]): string {
  let out = ''
  let prevString = false
  args.forEach((a, i) => {
    const x = unbox(a)
    const isString = x.k === 'string' || x.k === 'number'
    if (i > 0 && !isString && !prevString) out += ' '
    out += formatV(x)
    prevString = isString
  })
  return out
}

/** evalArgs: fmt.Sprint, but a nil prints `<no value>` (and one plain string passes through). */
function evalArgs(args: readonly GoValue[]): string {
  if (args.length === 1 && unbox(args[0] as GoValue).k === 'string') return str(unbox(args[0] as GoValue))
  const printable = args.map((a) =>
    unbox(a).k === 'invalid' ? ({ k: 'string', v: '<no value>' } as const) : a,
  )
  return sprint(printable)
}

function string(v: string): GoValue {
  return { k: 'string', v }
}

/** The functions by name (Go's builtins(); OPA adds none). */
export const FUNCTIONS: ReadonlyMap<string, TemplateFunction> = new Map<string, TemplateFunction>([
  ['eq', { fixed: ['value'], variadic: 'value', impl: eq }],
  ['ne', { fixed: ['value', 'value'], impl: ([a, b]) => bool(!isEq(a as GoValue, b as GoValue)) }],
  ['lt', { fixed: ['value', 'value'], impl: ([a, b]) => bool(lt(a as GoValue, b as GoValue)) }],
  [
    'le',
    {
      fixed: ['value', 'value'],
      impl: ([a, b]) => bool(lt(a as GoValue, b as GoValue) || isEq(a as GoValue, b as GoValue)),
    },
  ],
  [
    'gt',
    {
      fixed: ['value', 'value'],
      impl: ([a, b]) => bool(!(lt(a as GoValue, b as GoValue) || isEq(a as GoValue, b as GoValue))),
    },
  ],
  ['ge', { fixed: ['value', 'value'], impl: ([a, b]) => bool(!lt(a as GoValue, b as GoValue)) }],
  ['not', { fixed: ['value'], impl: ([a]) => bool(!truth(a as GoValue)) }],
  ['len', { fixed: ['value'], impl: length }],
  ['index', { fixed: ['value'], variadic: 'value', impl: index }],
  ['slice', { fixed: ['value'], variadic: 'value', impl: slice }],
  ['print', { fixed: [], variadic: 'any', impl: (args) => string(sprint(args)) }],
  [
    'println',
    {
      fixed: [],
      variadic: 'any',
      impl: (args) => string(`${args.map((a) => formatV(unbox(a))).join(' ')}\n`),
    },
  ],
  [
    'printf',
    {
      fixed: ['string'],
      variadic: 'any',
      impl: ([f, ...rest]) => string(goSprintf(str(unbox(f as GoValue)), rest.map(toGoArg))),
    },
  ],
  ['html', { fixed: [], variadic: 'any', impl: (args) => string(htmlEscape(evalArgs(args))) }],
  ['js', { fixed: [], variadic: 'any', impl: (args) => string(jsEscape(evalArgs(args))) }],
  ['urlquery', { fixed: [], variadic: 'any', impl: (args) => string(urlQueryEscape(evalArgs(args))) }],
  // Special forms (executor.ts); listed for their arity.
  ['and', { fixed: ['value'], variadic: 'value', impl: () => INVALID }],
  ['or', { fixed: ['value'], variadic: 'value', impl: () => INVALID }],
  ['call', { fixed: ['value'], variadic: 'value', impl: () => INVALID }],
])
