/** Every rule regent ships, in report order (category, then rule). */
import { BUG_RULES } from './rules/bugs.js'
import { IDIOMATIC_RULES } from './rules/idiomatic.js'
import { IMPORT_RULES } from './rules/imports.js'
import { PERFORMANCE_RULES } from './rules/performance.js'
import { STYLE_RULES } from './rules/style.js'
import { TESTING_RULES } from './rules/testing.js'
import type { LintRule } from './types.js'

export const BUILTIN_LINT_RULES: readonly LintRule[] = [
  ...BUG_RULES,
  ...IDIOMATIC_RULES,
  ...IMPORT_RULES,
  ...STYLE_RULES,
  ...TESTING_RULES,
  ...PERFORMANCE_RULES,
]
