/** Regular expressions with RE2 (Go) semantics: regex.*, and the deprecated re_match. */
import { t } from '../types/index.js'
import type { Value } from '../values/index.js'
import { defineBuiltin } from './define.js'
import { BuiltinError } from './errors.js'
import { intersects, parseGlobRegex } from './glob-intersection.js'
import { intOperand, stringOperand } from './operands.js'
import { compileRegex, findAll } from './regex-cache.js'

const str = (name: string, description: string) => t.named(name, t.string, description)

function matches(pattern: Value, value: Value): boolean {
  const re = compileRegex(stringOperand(pattern, 1))
  return re.test(stringOperand(value, 2))
}

export const regexMatch = defineBuiltin({
  name: 'regex.match',
  category: 'regex',
  description: 'Matches a string against a regular expression.',
  args: [str('pattern', 'regular expression'), str('value', 'value to match against `pattern`')],
  result: t.named('result', t.boolean, 'true if `value` matches `pattern`'),
  impl: (_ctx, [p, v]) => matches(p, v),
})

export const reMatch = defineBuiltin({
  name: 're_match',
  category: 'regex',
  description: 'Matches a string against a regular expression (deprecated: use `regex.match`).',
  args: [str('pattern', 'regular expression'), str('value', 'value to match against `pattern`')],
  result: t.named('result', t.boolean, 'true if `value` matches `pattern`'),
  deprecated: true,
  impl: (_ctx, [p, v]) => matches(p, v),
})

export const regexIsValid = defineBuiltin({
  name: 'regex.is_valid',
  category: 'regex',
  description:
    'Checks if a string is a valid regular expression: the detailed syntax for patterns is defined by https://github.com/google/re2/wiki/Syntax.',
  args: [str('pattern', 'regular expression')],
  result: t.named('result', t.boolean, 'true if `pattern` is a valid regular expression'),
  impl: (_ctx, [p]) => {
    if (typeof p !== 'string') return false
    try {
      compileRegex(p)
      return true
    } catch {
      return false
    }
  },
})

export const regexFindN = defineBuiltin({
  name: 'regex.find_n',
  category: 'regex',
  description: 'Returns the specified number of matches when matching the input against the pattern.',
  args: [
    str('pattern', 'regular expression'),
    str('value', 'string to match'),
    t.named('number', t.number, 'number of matches to return, if `-1`, returns all matches'),
  ],
  result: t.named('output', t.array(t.string), 'collected matches'),
  impl: (_ctx, [p, v, n]) => {
    const re = compileRegex(stringOperand(p, 1))
    const s = stringOperand(v, 2)
    return findAll(re, s, intOperand(n, 3)).map((m) => s.slice(m.start, m.end))
  },
})

export const regexFindAllStringSubmatchN = defineBuiltin({
  name: 'regex.find_all_string_submatch_n',
  category: 'regex',
  description: 'Returns all successive matches of the expression.',
  args: [
    str('pattern', 'regular expression'),
    str('value', 'string to match'),
    t.named('number', t.number, 'number of matches to return; `-1` means all matches'),
  ],
  result: t.named('output', t.array(t.array(t.string)), 'array of all matches'),
  impl: (_ctx, [p, v, n]) => {
    const re = compileRegex(stringOperand(p, 1))
    const s = stringOperand(v, 2)
    return findAll(re, s, intOperand(n, 3)).map((m) => [
      s.slice(m.start, m.end),
      ...m.groups.map(([a, b]) => (a < 0 ? '' : s.slice(a, b))),
    ])
  },
})

/** Go's `Regexp.ReplaceAllString` template expansion: `$1`, `${1}`, `$name`, `${name}`, `$$`. */
function expand(
  template: string,
  s: string,
  groups: Array<[number, number]>,
  names: Record<string, number>,
): string {
  return template.replace(/\$(\$|\{([A-Za-z0-9_]+)\}|([A-Za-z0-9_]+))/g, (whole, _all, braced, bare) => {
    if (whole === '$$') return '$'
    const name: string = braced ?? bare
    const index = /^\d+$/.test(name) ? Number(name) : names[name]
    if (index === undefined) return ''
    if (index === 0) return s
    const span = groups[index - 1]
    return span && span[0] >= 0 ? s.slice(span[0], span[1]) : ''
  })
}

export const regexReplace = defineBuiltin({
  name: 'regex.replace',
  category: 'regex',
  description: 'Find and replaces the text using the regular expression pattern.',
  args: [
    str('s', 'string being processed'),
    str('pattern', 'regex pattern to be applied'),
    str('value', 'regex value'),
  ],
  result: str('output', 'string with replaced substrings'),
  impl: (_ctx, [s, p, v]) => {
    const input = stringOperand(s, 1)
    const re = compileRegex(stringOperand(p, 2))
    const template = stringOperand(v, 3)
    const names = re.namedGroups()
    let out = ''
    let last = 0
    for (const m of findAll(re, input, -1)) {
      out += input.slice(last, m.start)
      out += expand(
        template,
        input.slice(m.start, m.end),
        m.groups.map(([a, b]) => [a - m.start, b - m.start]),
        names,
      )
      last = m.end
    }
    return out + input.slice(last)
  },
})

export const regexSplit = defineBuiltin({
  name: 'regex.split',
  category: 'regex',
  description: 'Splits the input string by the occurrences of the given pattern.',
  args: [str('pattern', 'regular expression'), str('value', 'string to match')],
  result: t.named('output', t.array(t.string), 'the parts obtained by splitting `value`'),
  impl: (_ctx, [p, v]) => {
    const pattern = stringOperand(p, 1)
    const re = compileRegex(pattern)
    const s = stringOperand(v, 2)
    if (pattern.length > 0 && s.length === 0) return ['']
    const out: string[] = []
    let beg = 0
    let end = 0
    for (const m of findAll(re, s, -1)) {
      end = m.start
      if (m.end !== 0) out.push(s.slice(beg, end))
      beg = m.end
    }
    if (end !== s.length) out.push(s.slice(beg))
    return out
  },
})

function quoteMeta(s: string): string {
  return s.replace(/[\\.+*?()|[\]{}^$]/g, '\\$&')
}

export const regexTemplateMatch = defineBuiltin({
  name: 'regex.template_match',
  category: 'regex',
  description:
    'Matches a string against a pattern, where there pattern may be glob-like: the parts between the delimiters are regular expressions, the rest is literal.',
  args: [
    str('template', 'template expression containing `0..n` regular expressions'),
    str('value', 'string to match'),
    str('delimiter_start', 'start delimiter of the regular expression in `template`'),
    str('delimiter_end', 'end delimiter of the regular expression in `template`'),
  ],
  result: t.named('result', t.boolean, 'true if `value` matches the `template`'),
  impl: (_ctx, [tpl, v, ds, de]) => {
    const template = stringOperand(tpl, 1)
    const value = stringOperand(v, 2)
    const open = stringOperand(ds, 3)
    const close = stringOperand(de, 4)
    if ([...open].length !== 1 || [...close].length !== 1)
      throw new BuiltinError('delimiters must be single characters')
    let pattern = '^'
    let depth = 0
    let part = ''
    for (const c of template) {
      if (c === open) {
        if (depth === 0) {
          pattern += quoteMeta(part)
          part = ''
        } else part += c
        depth++
      } else if (c === close && depth > 0) {
        depth--
        if (depth === 0) {
          pattern += `(${part})`
          part = ''
        } else part += c
      } else {
        part += c
      }
    }
    if (depth !== 0) throw new BuiltinError(`unbalanced braces in ${JSON.stringify(template)}`)
    pattern += `${quoteMeta(part)}$`
    return compileRegex(pattern).test(value)
  },
})

export const regexGlobsMatch = defineBuiltin({
  name: 'regex.globs_match',
  category: 'regex',
  description:
    'Checks if the intersection of two glob-style regular expressions matches a non-empty set of non-empty strings. The set of regex symbols is limited for this builtin: only `.`, `*`, `+`, `[`, `-`, `]` and `\\` are treated as special symbols.',
  args: [
    str('glob1', 'first glob-style regular expression'),
    str('glob2', 'second glob-style regular expression'),
  ],
  result: t.named(
    'result',
    t.boolean,
    'true if the intersection of `glob1` and `glob2` matches a non-empty set of non-empty strings',
  ),
  impl: (_ctx, [a, b]) =>
    intersects(parseGlobRegex(stringOperand(a, 1)), parseGlobRegex(stringOperand(b, 2))),
})

/** The regex built-ins. */
export const REGEX = [
  regexMatch,
  reMatch,
  regexIsValid,
  regexFindN,
  regexFindAllStringSubmatchN,
  regexReplace,
  regexSplit,
  regexTemplateMatch,
  regexGlobsMatch,
] as const
