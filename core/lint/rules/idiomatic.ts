/**
 * `idiomatic`: Rego that works but says with more words (or more evaluation) what a construct of
 * the language says directly.
 */
import type { Term } from '../../rego/syntax/ast.js'
import { isCallExpr } from '../../rego/syntax/ast.js'
import { locationText } from '../../rego/syntax/source.js'
import { exprs, walk } from '../../rego/syntax/walk.js'
import { allRules, callName, isWildcard } from '../ast-helpers.js'
import type { Finding, LintRule } from '../types.js'

const COMPARISONS = new Set(['equal', 'neq', 'lt', 'lte', 'gt', 'gte'])
// Built-ins whose first argument is a regular expression pattern.
const REGEX_FUNCTIONS = new Set([
  'regex.match',
  'regex.is_valid',
  'regex.split',
  'regex.find_n',
  'regex.find_all_string_submatch_n',
  'regex.replace',
  'regex.template_match',
])

// `xs[_]`: a ref whose last operand is a wildcard, i.e. "some element of xs".
function iteratesLast(term: Term | undefined): boolean {
  return term?.type === 'ref' && term.value.length > 1 && isWildcard(term.value.at(-1))
}

/**
 * use-in-operator: `input.roles[_] == "admin"` reads as a loop and hides the intent; `"admin" in
 * input.roles` says membership, and also works on sets and objects.
 */
export const useInOperator: LintRule = {
  name: 'use-in-operator',
  category: 'idiomatic',
  description: 'Use in to check for membership',
  check({ file }) {
    const found: Finding[] = []
    for (const rule of allRules(file.module)) {
      for (const expr of exprs(rule.body)) {
        const name = callName(expr)
        if ((name !== 'equal' && name !== 'eq') || !isCallExpr(expr)) continue
        const [, a, b] = expr.terms
        if (iteratesLast(a) !== iteratesLast(b)) found.push({ location: expr.location })
      }
    }
    return found
  },
}

/**
 * boolean-assignment: `allow := input.x == 1` assigns the comparison's result, so `allow` is
 * `false` (not undefined) when it fails, which `default` handles more clearly: write
 * `allow if input.x == 1` with a `default`.
 */
export const booleanAssignment: LintRule = {
  name: 'boolean-assignment',
  category: 'idiomatic',
  description: 'Prefer `if` over boolean assignment',
  check({ file }) {
    return file.module.rules
      .filter((r) => {
        const v = r.head.value
        return (
          r.generatedBody && !r.default && v?.type === 'call' && COMPARISONS.has(callOperator(v.value[0]))
        )
      })
      .map((r) => ({ location: r.location }))
  },
}

function callOperator(term: Term | undefined): string {
  if (term?.type !== 'ref') return ''
  const head = term.value[0]
  return term.value.length === 1 && head?.type === 'var' ? head.value : ''
}

/**
 * non-raw-regex-pattern: a pattern in a "quoted" string needs every backslash doubled; a `raw`
 * string is the pattern as the regex engine reads it.
 */
export const nonRawRegexPattern: LintRule = {
  name: 'non-raw-regex-pattern',
  category: 'idiomatic',
  description: 'Use raw strings for regex patterns',
  check({ file }) {
    const found: Finding[] = []
    walk(file.module, (n) => {
      const args = n.type === 'call' ? n.value : n.type === 'expr' && isCallExpr(n) ? n.terms : undefined
      if (!args) return
      const name = n.type === 'expr' ? callName(n) : callOperatorDotted(args[0])
      if (!name || !REGEX_FUNCTIONS.has(name)) return
      const pattern = args[1]
      const text = pattern?.type === 'string' ? locationText(pattern.location) : undefined
      if (text?.startsWith('"') && text.includes('\\\\')) found.push({ location: pattern?.location })
    })
    return found
  },
}

function callOperatorDotted(term: Term | undefined): string | undefined {
  if (term?.type !== 'ref') return undefined
  const parts: string[] = []
  for (const [i, t] of term.value.entries()) {
    if (i === 0 && t.type === 'var') parts.push(t.value)
    else if (i > 0 && t.type === 'string') parts.push(t.value)
    else return undefined
  }
  return parts.join('.')
}

export const IDIOMATIC_RULES: readonly LintRule[] = [useInOperator, booleanAssignment, nonRawRegexPattern]
