/**
 * String built-ins. Positions and lengths count Unicode code points (Go runes), not UTF-16 units:
 * `indexof("μx", "x")` is 1 and `substring` never splits an emoji.
 */
import { CHARS_PER_UNIT } from '../eval/budget.js'
import { t } from '../types/index.js'
import type { Value } from '../values/index.js'
import {
  formatValue,
  isArray,
  isFloatForm,
  isNumberValue,
  isSet,
  numberText,
  toBigInt,
  toDouble,
  toSafeInt,
  truncatedFloat,
} from '../values/index.js'
import { defineBuiltin } from './define.js'
import { BuiltinError, OperandError } from './errors.js'
import { type GoArg, goSprintf, paddingChars, starPaddingChars } from './go-format.js'
import { chargeWork } from './meter.js'
import {
  arrayOperand,
  intOperand,
  numberOperand,
  objectOperand,
  operandElementError,
  operandTypeError,
  stringListOperand,
  stringOperand,
} from './operands.js'

const s2 = (a: string, b: string) => [t.named('x', t.string, a), t.named('y', t.string, b)]

/** Code points of a string (Go's `[]rune(s)`). */
export function runes(s: string): string[] {
  return Array.from(s)
}

function runeIndex(s: string, unitIndex: number): number {
  let n = 0
  for (let i = 0; i < unitIndex; i++) {
    const c = s.charCodeAt(i)
    if (c >= 0xd800 && c <= 0xdbff && i + 1 < unitIndex) i++
    n++
  }
  return n
}

export const concat = defineBuiltin({
  name: 'concat',
  category: 'strings',
  description: 'Joins a set or array of strings with a delimiter.',
  args: [
    t.named('delimiter', t.string, 'string to use as a delimiter'),
    t.named('collection', t.anyOf(t.array(t.string), t.set(t.string)), 'strings to join'),
  ],
  result: t.named('output', t.string, 'the joined string'),
  impl: (_ctx, [delim, xs]) => {
    const d = stringOperand(delim, 1)
    // OPA's builtinConcat names the kinds set first, unlike its StringSliceOperand.
    if (!isArray(xs) && !isSet(xs)) throw operandTypeError(2, xs, 'set', 'array')
    return stringListOperand(xs, 2).join(d)
  },
})

export const contains = defineBuiltin({
  name: 'contains',
  category: 'strings',
  description: 'Returns `true` if the search string is included in the base string',
  args: s2('base string', 'search string'),
  result: t.named('result', t.boolean, 'result of the containment check'),
  impl: (_ctx, [x, y]) => stringOperand(x, 1).includes(stringOperand(y, 2)),
})

export const startswith = defineBuiltin({
  name: 'startswith',
  category: 'strings',
  description: 'Returns true if the search string begins with the base string.',
  args: [t.named('search', t.string, 'search string'), t.named('base', t.string, 'base string')],
  result: t.named('result', t.boolean, 'result of the prefix check'),
  impl: (_ctx, [x, y]) => stringOperand(x, 1).startsWith(stringOperand(y, 2)),
})

export const endswith = defineBuiltin({
  name: 'endswith',
  category: 'strings',
  description: 'Returns true if the search string ends with the base string.',
  args: [t.named('search', t.string, 'search string'), t.named('base', t.string, 'base string')],
  result: t.named('result', t.boolean, 'result of the suffix check'),
  impl: (_ctx, [x, y]) => stringOperand(x, 1).endsWith(stringOperand(y, 2)),
})

export const formatInt = defineBuiltin({
  name: 'format_int',
  category: 'strings',
  description:
    'Returns the string representation of the number in the given base after rounding it down to an integer value.',
  args: [
    t.named('number', t.number, 'number to format'),
    t.named('base', t.number, 'base of number representation to use'),
  ],
  result: t.named('output', t.string, 'formatted number'),
  impl: (_ctx, [n, b]) => {
    const num = numberOperand(n, 1)
    const base = toSafeInt(numberOperand(b, 2))
    if (base !== 2 && base !== 8 && base !== 10 && base !== 16)
      throw new OperandError(2, 'must be one of {2, 8, 10, 16}')
    // OPA formats an integer's big.Int exactly; any other number (15.9, 3.0) is read as a 64-bit
    // big.Float and truncated toward zero, so 2.9999999999999999999 formats as 3.
    const exact = isFloatForm(num) ? undefined : toBigInt(num)
    return (exact ?? truncatedFloat(num)).toString(base)
  },
})

/** indexof's and indexof_n's second argument: OPA refuses an empty needle. */
function needleOperand(n: Value): string {
  const needle = stringOperand(n, 2)
  if (needle === '') throw new BuiltinError('empty search character')
  return needle
}

export const indexof = defineBuiltin({
  name: 'indexof',
  category: 'strings',
  description: 'Returns the index of a substring contained inside a string.',
  args: [
    t.named('haystack', t.string, 'string to search in'),
    t.named('needle', t.string, 'substring to look for'),
  ],
  result: t.named('output', t.number, 'index of first occurrence, `-1` if not found'),
  impl: (_ctx, [h, n]) => {
    const hay = stringOperand(h, 1)
    const i = hay.indexOf(needleOperand(n))
    return i < 0 ? -1 : runeIndex(hay, i)
  },
})

export const indexofN = defineBuiltin({
  name: 'indexof_n',
  category: 'strings',
  description: 'Returns a list of all the indexes of a substring contained inside a string.',
  args: [
    t.named('haystack', t.string, 'string to search in'),
    t.named('needle', t.string, 'substring to look for'),
  ],
  result: t.named(
    'output',
    t.array(t.number),
    'all indices at which `needle` occurs in `haystack`, may be empty',
  ),
  impl: (_ctx, [h, n]) => {
    const hay = stringOperand(h, 1)
    const needle = needleOperand(n)
    const out: Value[] = []
    // Like OPA, advance one position after each match, so matches may overlap.
    for (let i = hay.indexOf(needle); i >= 0 && i <= hay.length; i = hay.indexOf(needle, i + 1)) {
      out.push(runeIndex(hay, i))
      if (i === hay.length) break
    }
    return out
  },
})

// Go's unicode.ToLower/ToUpper map each rune by its simple (one-rune) case mapping. JavaScript
// applies the full mapping, which gives several runes for a few characters; most of them have no
// simple mapping and stay as they are, but these have one (UnicodeData.txt, Go's CaseRanges).
function simpleCase(cp: number, upper: boolean): number | undefined {
  if (!upper) return cp === 0x130 ? 0x69 : undefined
  if ((cp >= 0x1f80 && cp <= 0x1f87) || (cp >= 0x1f90 && cp <= 0x1f97) || (cp >= 0x1fa0 && cp <= 0x1fa7))
    return cp + 8
  return cp === 0x1fb3 || cp === 0x1fc3 || cp === 0x1ff3 ? cp + 9 : undefined
}

function mapRunes(s: string, upper: boolean): string {
  let out = ''
  for (const c of s) {
    const m = upper ? c.toUpperCase() : c.toLowerCase()
    if ([...m].length === 1) out += m
    else {
      const simple = simpleCase(c.codePointAt(0) as number, upper)
      out += simple === undefined ? c : String.fromCodePoint(simple)
    }
  }
  return out
}

export const lower = defineBuiltin({
  name: 'lower',
  category: 'strings',
  description: 'Returns the input string but with all characters in lower-case.',
  args: [t.named('x', t.string, 'string that is converted to lower-case')],
  result: t.named('y', t.string, 'lower-case of x'),
  impl: (_ctx, [x]) => mapRunes(stringOperand(x, 1), false),
})

export const upper = defineBuiltin({
  name: 'upper',
  category: 'strings',
  description: 'Returns the input string but with all characters in upper-case.',
  args: [t.named('x', t.string, 'string that is converted to upper-case')],
  result: t.named('y', t.string, 'upper-case of x'),
  impl: (_ctx, [x]) => mapRunes(stringOperand(x, 1), true),
})

/** Go's strings.ReplaceAll (an empty `old` inserts `new` around every rune). */
export function replaceAll(s: string, old: string, rep: string): string {
  if (old === '') return rep + runes(s).join(rep) + (s === '' ? '' : rep)
  return s.split(old).join(rep)
}

export const replace = defineBuiltin({
  name: 'replace',
  category: 'strings',
  description: 'Replace replaces all instances of a sub-string.',
  args: [
    t.named('x', t.string, 'string being processed'),
    t.named('old', t.string, 'substring to replace'),
    t.named('new', t.string, 'string to replace `old` with'),
  ],
  result: t.named('y', t.string, 'string with replaced substrings'),
  impl: (_ctx, [x, o, n]) => replaceAll(stringOperand(x, 1), stringOperand(o, 2), stringOperand(n, 3)),
})

export const split = defineBuiltin({
  name: 'split',
  category: 'strings',
  description: 'Split returns an array containing elements of the input string split on a delimiter.',
  args: [
    t.named('x', t.string, 'string that is split'),
    t.named('delimiter', t.string, 'delimiter used for splitting'),
  ],
  result: t.named('ys', t.array(t.string), 'split parts'),
  impl: (_ctx, [x, d]) => {
    const s = stringOperand(x, 1)
    const delim = stringOperand(d, 2)
    return delim === '' ? runes(s) : s.split(delim)
  },
})

/**
 * OPA's conversion of a sprintf argument to the Go value fmt sees. OPA decides by the number's
 * text: an integer lexeme is an int (a *big.Int past int64), anything written with a fraction or
 * an exponent is a float64 (`1.0`, `1e2` too), and what float64 cannot hold stays its text.
 */
function goArg(v: Value): GoArg {
  if (typeof v === 'string') return { kind: 'string', value: v }
  if (isNumberValue(v)) {
    const b = isFloatForm(v) && Number.isFinite(toDouble(v)) ? undefined : toBigInt(v)
    if (b !== undefined) {
      const big = b < -(2n ** 63n) || b >= 2n ** 63n
      if (!big || Number.isFinite(Number(b))) return { kind: 'int', value: b, big }
      // NOTE(builtins): beyond float64, OPA prints the source lexeme (`2e308`); the closest we
      // can do after canonicalization is the shortest exponent form.
      const digits = b.toString()
      const zeros = /0*$/.exec(digits)?.[0].length ?? 0
      return {
        kind: 'string',
        value: zeros > 0 ? `${digits.slice(0, digits.length - zeros)}e${zeros}` : digits,
      }
    }
    const d = toDouble(v)
    // A zero here is either `0.0` (a float64 0) or a fraction too small for float64 (its text).
    return Number.isFinite(d) && (d !== 0 || isFloatForm(v))
      ? { kind: 'float', value: d }
      : { kind: 'string', value: numberText(v) }
  }
  return { kind: 'string', value: formatValue(v) }
}

export const sprintf = defineBuiltin({
  name: 'sprintf',
  category: 'strings',
  description: 'Returns the given string, formatted (Go `fmt.Sprintf` verbs).',
  args: [
    t.named('format', t.string, 'string with formatting verbs'),
    t.named('values', t.array(t.any), 'arguments to format into formatting verbs'),
  ],
  result: t.named('output', t.string, '`format` formatted by the values in `values`'),
  impl: (_ctx, [f, xs]) => {
    const format = stringOperand(f, 1)
    const args = arrayOperand(xs, 2).map(goArg)
    // Widths and precisions come from the format and, for `*`, the arguments: their padding is
    // charged before it is built.
    chargeWork(Math.floor((paddingChars(format) + starPaddingChars(format, args)) / CHARS_PER_UNIT))
    return goSprintf(format, args)
  },
})

function stringsOperand(v: Value, position: number): string[] {
  if (typeof v === 'string') return [v]
  if (isArray(v) || isSet(v)) {
    const items = isArray(v) ? v : v.values()
    return items.map((x) => {
      if (typeof x !== 'string') throw operandElementError(position, v, x, 'string')
      return x
    })
  }
  throw operandTypeError(position, v, 'string', 'set', 'array')
}

function anyMatch(name: string, test: (s: string, p: string) => boolean, word: string) {
  return defineBuiltin({
    name,
    category: 'strings',
    description: `Returns true if any of the search strings ${word} any of the base strings.`,
    args: [
      t.named('search', t.anyOf(t.string, t.array(t.string), t.set(t.string)), 'search string(s)'),
      t.named('base', t.anyOf(t.string, t.array(t.string), t.set(t.string)), 'base string(s)'),
    ],
    result: t.named('result', t.boolean, 'result of the check'),
    impl: (_ctx, [s, b]) => {
      const search = stringsOperand(s, 1)
      const base = stringsOperand(b, 2)
      return search.some((x) => base.some((p) => test(x, p)))
    },
  })
}

export const anyPrefixMatch = anyMatch('strings.any_prefix_match', (s, p) => s.startsWith(p), 'start with')
export const anySuffixMatch = anyMatch('strings.any_suffix_match', (s, p) => s.endsWith(p), 'end with')

export const stringsCount = defineBuiltin({
  name: 'strings.count',
  category: 'strings',
  description: 'Returns the number of non-overlapping instances of a substring in a string.',
  args: [
    t.named('search', t.string, 'string to search in'),
    t.named('substring', t.string, 'substring to look for'),
  ],
  result: t.named('output', t.number, 'count of occurrences, `0` if not found'),
  impl: (_ctx, [s, sub]) => {
    const hay = stringOperand(s, 1)
    const needle = stringOperand(sub, 2)
    if (needle === '') return runes(hay).length + 1
    return hay.split(needle).length - 1
  },
})

export const stringsReverse = defineBuiltin({
  name: 'strings.reverse',
  category: 'strings',
  description: 'Reverses a given string.',
  args: [t.named('x', t.string, 'string to reverse')],
  result: t.named('y', t.string, 'reversed string'),
  impl: (_ctx, [x]) => runes(stringOperand(x, 1)).reverse().join(''),
})

export const replaceN = defineBuiltin({
  name: 'strings.replace_n',
  category: 'strings',
  description:
    'Replaces a string from a list of old, new string pairs. Replacements are performed in the order they appear in the target string, without overlapping matches. The old string comparisons are done in argument order.',
  args: [
    t.named('patterns', t.object(t.string, t.string), 'replacement pairs'),
    t.named('value', t.string, 'string to replace substring matches in'),
  ],
  result: t.named('output', t.string, 'string with replaced substrings'),
  impl: (_ctx, [p, v]) => {
    const patterns = objectOperand(p, 1)
    const value = stringOperand(v, 2)
    const pairs: Array<[string, string]> = []
    for (const [k, r] of patterns.entries()) {
      if (typeof k !== 'string') throw new OperandError(1, 'non-string key found in pattern object')
      if (typeof r !== 'string') throw new OperandError(1, 'non-string value found in pattern object')
      pairs.push([k, r])
    }
    return replacePairs(pairs, value)
  },
})

/**
 * Go's strings.Replacer over `pairs` (in key order, so the first key that matches at a position
 * wins). An empty key matches at every position, the end included, but not twice in a row: after
 * it matched, the other keys get their turn at the same position before the scan moves on.
 * NOTE(builtins): Go steps over bytes where nothing matches; this steps over code points, which
 * differs only in splitting a multi-byte character OPA would print as invalid UTF-8.
 */
function replacePairs(pairs: ReadonlyArray<[string, string]>, value: string): string {
  let out = ''
  let i = 0
  let emptyJustMatched = false
  while (i <= value.length) {
    const hit = pairs.find(([k]) => (k === '' ? !emptyJustMatched : value.startsWith(k, i)))
    emptyJustMatched = hit?.[0] === ''
    if (hit) {
      out += hit[1]
      i += hit[0].length
    } else if (i < value.length) {
      const ch = String.fromCodePoint(value.codePointAt(i) as number)
      out += ch
      i += ch.length
    } else {
      break
    }
  }
  return out
}

export const substring = defineBuiltin({
  name: 'substring',
  category: 'strings',
  description:
    'Returns the portion of a string for a given `offset` and a `length`. If `length < 0`, `output` is the remainder of the string.',
  args: [
    t.named('value', t.string, 'string to extract substring from'),
    t.named('offset', t.number, 'offset, must be positive'),
    t.named('length', t.number, 'length of the substring starting from `offset`'),
  ],
  result: t.named('output', t.string, 'substring of `value` from `offset`, of length `length`'),
  impl: (_ctx, [v, o, l]) => {
    const rs = runes(stringOperand(v, 1))
    const offset = intOperand(o, 2)
    const length = intOperand(l, 3)
    if (offset < 0) throw new BuiltinError('negative offset')
    if (offset >= rs.length) return ''
    const end = length < 0 || offset + length > rs.length ? rs.length : offset + length
    return rs.slice(offset, end).join('')
  },
})

function cutset(s: string): Set<string> {
  return new Set(runes(s))
}

function trimLeftSet(s: string, set: Set<string>): string {
  const rs = runes(s)
  let i = 0
  while (i < rs.length && set.has(rs[i] as string)) i++
  return rs.slice(i).join('')
}

function trimRightSet(s: string, set: Set<string>): string {
  const rs = runes(s)
  let j = rs.length
  while (j > 0 && set.has(rs[j - 1] as string)) j--
  return rs.slice(0, j).join('')
}

export const trim = defineBuiltin({
  name: 'trim',
  category: 'strings',
  description: 'Returns `value` with all leading or trailing instances of the `cutset` characters removed.',
  args: [
    t.named('value', t.string, 'string to trim'),
    t.named('cutset', t.string, 'string of characters that are cut off'),
  ],
  result: t.named('output', t.string, 'string trimmed of `cutset` characters'),
  impl: (_ctx, [v, c]) => {
    const set = cutset(stringOperand(c, 2))
    return trimRightSet(trimLeftSet(stringOperand(v, 1), set), set)
  },
})

export const trimLeft = defineBuiltin({
  name: 'trim_left',
  category: 'strings',
  description: 'Returns `value` with all leading instances of the `cutset` characters removed.',
  args: [
    t.named('value', t.string, 'string to trim'),
    t.named('cutset', t.string, 'string of characters that are cut off on the left'),
  ],
  result: t.named('output', t.string, 'string left-trimmed of `cutset` characters'),
  impl: (_ctx, [v, c]) => trimLeftSet(stringOperand(v, 1), cutset(stringOperand(c, 2))),
})

export const trimRight = defineBuiltin({
  name: 'trim_right',
  category: 'strings',
  description: 'Returns `value` with all trailing instances of the `cutset` characters removed.',
  args: [
    t.named('value', t.string, 'string to trim'),
    t.named('cutset', t.string, 'string of characters that are cut off on the right'),
  ],
  result: t.named('output', t.string, 'string right-trimmed of `cutset` characters'),
  impl: (_ctx, [v, c]) => trimRightSet(stringOperand(v, 1), cutset(stringOperand(c, 2))),
})

export const trimPrefix = defineBuiltin({
  name: 'trim_prefix',
  category: 'strings',
  description:
    "Returns `value` without the prefix. If `value` doesn't start with `prefix`, it is returned unchanged.",
  args: [t.named('value', t.string, 'string to trim'), t.named('prefix', t.string, 'prefix to cut off')],
  result: t.named('output', t.string, 'string with `prefix` cut off'),
  impl: (_ctx, [v, p]) => {
    const s = stringOperand(v, 1)
    const prefix = stringOperand(p, 2)
    return s.startsWith(prefix) ? s.slice(prefix.length) : s
  },
})

export const trimSuffix = defineBuiltin({
  name: 'trim_suffix',
  category: 'strings',
  description:
    "Returns `value` without the suffix. If `value` doesn't end with `suffix`, it is returned unchanged.",
  args: [t.named('value', t.string, 'string to trim'), t.named('suffix', t.string, 'suffix to cut off')],
  result: t.named('output', t.string, 'string with `suffix` cut off'),
  impl: (_ctx, [v, p]) => {
    const s = stringOperand(v, 1)
    const suffix = stringOperand(p, 2)
    return suffix !== '' && s.endsWith(suffix) ? s.slice(0, s.length - suffix.length) : s
  },
})

// Go's unicode.IsSpace.
const GO_SPACE =
  /^[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+|[\t\n\v\f\r \u0085\u00a0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]+$/g

export const trimSpace = defineBuiltin({
  name: 'trim_space',
  category: 'strings',
  description: 'Return the given string with all leading and trailing white space removed.',
  args: [t.named('value', t.string, 'string to trim')],
  result: t.named('output', t.string, 'string leading and trailing white space cut off'),
  impl: (_ctx, [v]) => stringOperand(v, 1).replace(GO_SPACE, ''),
})

/** How a value is written into a template string or print output: strings raw, the rest as Rego. */
export function displayValue(v: Value): string {
  return typeof v === 'string' ? v : formatValue(v)
}

export const templateString = defineBuiltin({
  name: 'internal.template_string',
  category: 'strings',
  description:
    'Renders a template string: string parts are literal, other parts are the set of values of an expression (empty: `<undefined>`).',
  args: [t.named('parts', t.array(t.any), 'literal strings and value sets')],
  result: t.named('output', t.string, 'the rendered string'),
  impl: (_ctx, [parts]) => {
    let out = ''
    for (const part of arrayOperand(parts, 1)) {
      if (isSet(part)) {
        if (part.size === 0) out += '<undefined>'
        else if (part.size === 1) out += displayValue(part.values()[0] as Value)
        else throw new BuiltinError('template-strings must not produce multiple outputs')
      } else {
        out += displayValue(part)
      }
    }
    return out
  },
})

/** The string built-ins (render_template is in template.ts). */
export const STRINGS = [
  concat,
  contains,
  startswith,
  endswith,
  formatInt,
  indexof,
  indexofN,
  lower,
  upper,
  replace,
  split,
  sprintf,
  anyPrefixMatch,
  anySuffixMatch,
  stringsCount,
  stringsReverse,
  replaceN,
  substring,
  trim,
  trimLeft,
  trimRight,
  trimPrefix,
  trimSuffix,
  trimSpace,
  templateString,
] as const
