/**
 * `style`: how a policy reads. None of these change what a policy decides; all of them change how
 * fast the next person understands it.
 */
import { formatSource } from '../../rego/format/formatter.js'
import { walk } from '../../rego/syntax/walk.js'
import { allRules, isWildcard, ruleName } from '../ast-helpers.js'
import type { Finding, LintRule } from '../types.js'

const DEFAULT_MAX_LINE_LENGTH = 120
const SNAKE_CASE = /^[a-z0-9_]+$/

/**
 * line-length: long lines are hard to read in review tools and side-by-side diffs. The limit is the
 * `max-line-length` option (default 120).
 */
export const lineLength: LintRule = {
  name: 'line-length',
  category: 'style',
  description: 'Line too long',
  check({ file, options }) {
    const max =
      typeof options['max-line-length'] === 'number' ? options['max-line-length'] : DEFAULT_MAX_LINE_LENGTH
    const found: Finding[] = []
    file.lines.forEach((line, i) => {
      if ([...line].length > max) {
        found.push({
          location: { row: i + 1, col: max + 1 },
          message: `Line too long (${[...line].length} > ${max})`,
        })
      }
    })
    return found
  },
}

/**
 * prefer-snake-case: Rego's built-ins and OPA's own policies use snake_case; mixing styles makes
 * `data.x.isAdmin` versus `data.x.is_admin` a source of undefined references.
 */
export const preferSnakeCase: LintRule = {
  name: 'prefer-snake-case',
  category: 'style',
  description: 'Prefer snake_case for names',
  check({ file }) {
    const found: Finding[] = []
    const reported = new Set<string>()
    for (const rule of file.module.rules) {
      const name = ruleName(rule)
      if (name && !SNAKE_CASE.test(name) && !reported.has(`r:${name}`)) {
        reported.add(`r:${name}`)
        found.push({ location: rule.location, message: `Rule name ${name} is not snake_case` })
      }
    }
    for (const rule of allRules(file.module)) {
      walk(rule.body, (n) => {
        if (
          n.type === 'var' &&
          !isWildcard(n) &&
          !SNAKE_CASE.test(n.value) &&
          !reported.has(`v:${n.value}`)
        ) {
          reported.add(`v:${n.value}`)
          found.push({ location: n.location, message: `Variable ${n.value} is not snake_case` })
        }
      })
    }
    return found
  },
}

/**
 * default-not-first: a `default` written after the rules it completes is easy to miss when reading
 * them; put the fallback value first, where the reader meets the rule.
 */
export const defaultNotFirst: LintRule = {
  name: 'default-not-first',
  category: 'style',
  description: 'Default rule should be declared before the rules it completes',
  check({ file }) {
    const seen = new Set<string>()
    const found: Finding[] = []
    for (const rule of file.module.rules) {
      const name = ruleName(rule) ?? ''
      if (rule.default && seen.has(name)) found.push({ location: rule.location })
      seen.add(name)
    }
    return found
  },
}

/**
 * opa-fmt: one canonical layout ends formatting discussions in review and keeps diffs to what
 * changed. Run `regent fmt -w` (the same layout as `opa fmt`).
 */
export const opaFmt: LintRule = {
  name: 'opa-fmt',
  category: 'style',
  description: 'File should be formatted with `opa fmt`',
  check({ file }) {
    let formatted: string
    try {
      formatted = formatSource(file.text, { file: file.file, regoVersion: file.module.regoVersion })
    } catch {
      return [] // a file the formatter cannot print is reported by the parser, not here
    }
    if (formatted === file.text) return []
    const lines = formatted.split('\n')
    const row = file.lines.findIndex((line, i) => line !== lines[i])
    return [{ location: { row: (row === -1 ? file.lines.length : row) + 1, col: 1 } }]
  },
}

/**
 * todo-comment: TODO and FIXME comments are work left undone; track it where work is tracked.
 */
export const todoComment: LintRule = {
  name: 'todo-comment',
  category: 'style',
  description: 'Avoid TODO comments',
  check({ file }) {
    return file.module.comments
      .filter((c) => /^\s*(todo|fixme)\b/i.test(c.text))
      .map((c) => ({ location: c.location }))
  },
}

/**
 * use-assignment-operator: `p = 1` in a head unifies where `p := 1` assigns; `:=` says what is
 * meant and refuses to compile when the name is already bound.
 */
export const useAssignmentOperator: LintRule = {
  name: 'use-assignment-operator',
  category: 'style',
  description: 'Prefer := over = for assignment',
  check({ file }) {
    return allRules(file.module)
      .filter((r) => r.head.value && !r.head.assign && !r.head.generatedValue && !r.head.key)
      .map((r) => ({ location: r.head.location ?? r.location }))
  },
}

/**
 * prefer-some-in-iteration: `some x; xs[x]` spreads one iteration over two expressions;
 * `some x in xs` (or `some k, v in xs`) states it once and cannot bind the wrong name.
 */
export const preferSomeInIteration: LintRule = {
  name: 'prefer-some-in-iteration',
  category: 'style',
  description: 'Prefer `some .. in` for iteration',
  check({ file }) {
    const found: Finding[] = []
    for (const rule of allRules(file.module)) {
      for (const expr of rule.body) {
        const t = expr.terms
        if (Array.isArray(t) || t.type !== 'somedecl') continue
        if (t.symbols.some((s) => s.type !== 'var')) continue // already `some … in`
        found.push({ location: expr.location })
      }
    }
    return found
  },
}

export const STYLE_RULES: readonly LintRule[] = [
  lineLength,
  preferSnakeCase,
  defaultNotFirst,
  opaFmt,
  todoComment,
  useAssignmentOperator,
  preferSomeInIteration,
]
