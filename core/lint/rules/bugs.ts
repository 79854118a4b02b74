/**
 * `bugs`: code that is almost certainly not what its author meant.
 */
import { DEFAULT_BUILTINS } from '../../rego/builtins/registry.js'
import type { Rule } from '../../rego/syntax/ast.js'
import { isCallExpr, isTerm, operatorName } from '../../rego/syntax/ast.js'
import { toOpaJson } from '../../rego/syntax/json.js'
import { locationText } from '../../rego/syntax/source.js'
import { exprs, walk } from '../../rego/syntax/walk.js'
import {
  allRules,
  callName,
  isScalar,
  isWildcard,
  packageName,
  ruleName,
  topLevelNames,
  varCounts,
} from '../ast-helpers.js'
import type { Finding, LintFile, LintRule } from '../types.js'

const COMPARISONS = new Set(['equal', 'neq', 'lt', 'lte', 'gt', 'gte', 'eq'])

/** First segments of every built-in name (`count`, `http`, `io`): what a rule or var must not shadow. */
export const BUILTIN_ROOTS: ReadonlySet<string> = new Set(
  DEFAULT_BUILTINS.map((b) => b.name.split('.')[0] as string).filter((n) => !n.startsWith('internal')),
)

/**
 * constant-condition: `1 == 1` or `"a" != "b"` in a body is always (or never) true, so it is either
 * left over from debugging or hides a typo (a literal where a ref was meant). A bare `true` body
 * (`p if true`) is a deliberate idiom and is not reported.
 */
export const constantCondition: LintRule = {
  name: 'constant-condition',
  category: 'bugs',
  description: 'Constant condition',
  check({ file }) {
    const found: Finding[] = []
    for (const rule of allRules(file.module)) {
      if (rule.generatedBody) continue
      for (const expr of exprs(rule.body)) {
        if (expr.generated) continue
        if (isCallExpr(expr)) {
          const name = callName(expr)
          if (name && COMPARISONS.has(name) && isScalar(expr.terms[1]) && isScalar(expr.terms[2])) {
            found.push({ location: expr.location })
          }
        }
      }
    }
    return found
  },
}

/**
 * rule-shadows-builtin: a rule named `count` or `http` makes the built-in unreachable by its short
 * name in that package; later calls then fail to compile or, worse, call the rule.
 */
export const ruleShadowsBuiltin: LintRule = {
  name: 'rule-shadows-builtin',
  category: 'bugs',
  description: 'Rule name shadows built-in',
  check({ file }) {
    return file.module.rules
      .filter((r) => BUILTIN_ROOTS.has(ruleName(r) ?? ''))
      .map((r) => ({
        location: r.head.location ?? r.location,
        message: `Rule name shadows built-in ${ruleName(r)}`,
      }))
  },
}

/**
 * var-shadows-builtin: `count := 3` inside a body hides the built-in for the rest of the rule.
 */
export const varShadowsBuiltin: LintRule = {
  name: 'var-shadows-builtin',
  category: 'bugs',
  description: 'Variable name shadows built-in',
  check({ file }) {
    const found: Finding[] = []
    for (const rule of allRules(file.module)) {
      for (const expr of exprs(rule.body)) {
        const name = callName(expr)
        const lhs = isCallExpr(expr) ? expr.terms[1] : undefined
        if ((name === 'assign' || name === 'eq') && lhs?.type === 'var' && BUILTIN_ROOTS.has(lhs.value)) {
          found.push({ location: lhs.location ?? expr.location })
        }
      }
    }
    return found
  },
}

/**
 * impossible-not: a multi-value rule (`s contains x if …`) is always defined, as the empty set when
 * nothing is added, so `not s` is never true. Test `count(s) == 0` instead.
 */
export const impossibleNot: LintRule = {
  name: 'impossible-not',
  category: 'bugs',
  description: 'Impossible `not` condition',
  check({ file, all }) {
    const pkg = packageName(file.module)
    const multiValue = multiValueRules(all).get(pkg)
    if (!multiValue) return []
    const fullPrefix = `data.${pkg}.`
    const found: Finding[] = []
    for (const rule of allRules(file.module)) {
      for (const expr of exprs(rule.body)) {
        if (!expr.negated || Array.isArray(expr.terms) || !isTerm(expr.terms)) continue
        const t = expr.terms
        const name = t.type === 'var' ? t.value : t.type === 'ref' ? operatorName(t) : undefined
        if (!name) continue
        const local = name.startsWith(fullPrefix) ? name.slice(fullPrefix.length) : name
        if (multiValue.has(local)) found.push({ location: expr.location })
      }
    }
    return found
  },
}

// Multi-value rule names by package, computed once per run.
const multiValueIndex = new WeakMap<readonly LintFile[], Map<string, Set<string>>>()

function multiValueRules(all: readonly LintFile[]): Map<string, Set<string>> {
  let index = multiValueIndex.get(all)
  if (index) return index
  index = new Map()
  for (const f of all) {
    for (const rule of f.module.rules) {
      const name = ruleName(rule)
      if (!name || rule.head.ref.length !== 1 || !rule.head.key || rule.head.value) continue
      const pkg = packageName(f.module)
      const names = index.get(pkg) ?? new Set<string>()
      names.add(name)
      index.set(pkg, names)
    }
  }
  multiValueIndex.set(all, index)
  return index
}

/**
 * top-level-iteration: `x := input.users[_].name` iterates in a rule head without a body; when
 * more than one user exists the rule conflicts at evaluation time. Write a multi-value rule or a
 * comprehension instead.
 */
export const topLevelIteration: LintRule = {
  name: 'top-level-iteration',
  category: 'bugs',
  description: 'Iteration in top-level assignment',
  check({ file }) {
    const found: Finding[] = []
    for (const rule of file.module.rules) {
      if (!rule.generatedBody || rule.head.args || !rule.head.value) continue
      const value = rule.head.value
      if (value.type !== 'ref') continue
      if (value.value.slice(1).some((t) => t.type === 'var')) found.push({ location: rule.location })
    }
    return found
  },
}

/**
 * unused-output-variable: `input.users[u]` binds `u` to every key; when `u` is never used again,
 * the name promises something the rule does not do. Use `_`.
 */
export const unusedOutputVariable: LintRule = {
  name: 'unused-output-variable',
  category: 'bugs',
  description: 'Unused output variable',
  check({ file }) {
    const found: Finding[] = []
    const moduleNames = topLevelNames(file.module)
    for (const rule of file.module.rules) {
      const counts = varCounts([rule])
      walk(rule, (n) => {
        if (n.type !== 'ref') return
        for (const part of n.value.slice(1)) {
          if (part.type !== 'var' || isWildcard(part) || moduleNames.has(part.value)) continue
          if (counts.get(part.value) === 1) {
            found.push({ location: part.location, message: `Unused output variable ${part.value}` })
          }
        }
      })
    }
    return found
  },
}

/**
 * unused-assignment: `x := f(y)` where `x` is never read again does nothing but cost evaluation
 * time, and often means the wrong name was used on a later line.
 */
export const unusedAssignment: LintRule = {
  name: 'unused-assignment',
  category: 'bugs',
  description: 'Assigned variable is never used',
  check({ file }) {
    const found: Finding[] = []
    for (const rule of file.module.rules) {
      const counts = varCounts([rule])
      for (const expr of exprs(rule.body)) {
        if (callName(expr) !== 'assign' || !isCallExpr(expr)) continue
        const lhs = expr.terms[1]
        if (lhs?.type === 'var' && !isWildcard(lhs) && counts.get(lhs.value) === 1) {
          found.push({
            location: lhs.location ?? expr.location,
            message: `Variable ${lhs.value} is assigned but never used`,
          })
        }
      }
    }
    return found
  },
}

/**
 * duplicate-rule: two rules with the same head and body in one package add nothing but a place for
 * the next edit to go to only one of them.
 */
export const duplicateRule: LintRule = {
  name: 'duplicate-rule',
  category: 'bugs',
  description: 'Duplicate rule found',
  check({ file, all }) {
    const found: Finding[] = []
    for (const [rule, first] of duplicatesOf(all).get(file) ?? []) {
      const at = first.location
      found.push({
        location: rule.location,
        message: `Duplicate rule found${at ? ` (same as ${at.file}:${at.row})` : ''}`,
      })
    }
    return found
  },
}

// Computed once per run (keyed by the run's file list): each file's duplicates and their first copy.
const duplicateIndex = new WeakMap<readonly LintFile[], Map<LintFile, Array<[Rule, Rule]>>>()

function duplicatesOf(all: readonly LintFile[]): Map<LintFile, Array<[Rule, Rule]>> {
  let index = duplicateIndex.get(all)
  if (index) return index
  index = new Map()
  const seen = new Map<string, Rule>()
  for (const f of all) {
    const pkg = packageName(f.module)
    for (const rule of f.module.rules) {
      // The rule's source with whitespace collapsed: cheap, and what a reader sees as "the same
      // rule"; rules without source text (generated) fall back to their AST.
      const text = locationText(rule.location)?.replace(/\s+/g, ' ')
      const key = `${pkg}\u0000${text ?? JSON.stringify(toOpaJson(rule, { comments: false }))}`
      const first = seen.get(key)
      if (!first) seen.set(key, rule)
      else index.set(f, [...(index.get(f) ?? []), [rule, first]])
    }
  }
  duplicateIndex.set(all, index)
  return index
}

/**
 * rule-conflicts-with-import: a rule named like an import's last segment or alias is shadowed by
 * it (or shadows it), so references to either name mean something the reader does not expect.
 */
export const ruleConflictsWithImport: LintRule = {
  name: 'rule-conflicts-with-import',
  category: 'bugs',
  description: 'Rule name conflicts with an import',
  check({ file }) {
    const imported = new Set<string>()
    for (const imp of file.module.imports) {
      const last = imp.path.value.at(-1)
      imported.add(
        imp.alias ?? (last?.type === 'string' ? last.value : last?.type === 'var' ? last.value : ''),
      )
    }
    return file.module.rules
      .filter((r) => imported.has(ruleName(r) ?? ''))
      .map((r) => ({
        location: r.location,
        message: `Rule ${ruleName(r)} conflicts with an import of the same name`,
      }))
  },
}

export const BUG_RULES: readonly LintRule[] = [
  constantCondition,
  ruleShadowsBuiltin,
  varShadowsBuiltin,
  impossibleNot,
  topLevelIteration,
  unusedOutputVariable,
  unusedAssignment,
  duplicateRule,
  ruleConflictsWithImport,
]
