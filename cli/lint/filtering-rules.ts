/**
 * The `filtering` category's rule, `filter-fragment` (rationale and behaviour: filtering.ts and
 * docs/lint.md). The compile pipeline it runs is loaded only when a file has annotations, so
 * linting policies without filter rules does not pay for loading compile/.
 */
import type { LintRule } from '../../core/lint/types.js'

/**
 * filter-fragment: Rego in a filter rule (one with `compile` unknowns in its annotations) that the
 * compile endpoint cannot turn into SQL or UCAST, reported with the endpoint's own message.
 */
export const filterFragment: LintRule = {
  name: 'filter-fragment',
  category: 'filtering',
  description: 'Not supported by the compile endpoint',
  async check(ctx) {
    const annotated = ctx.all.some(
      (f) => f.module.annotations.length > 0 || f.module.rules.some((r) => (r.annotations?.length ?? 0) > 0),
    )
    if (!annotated) return []
    const { filterFragmentCheck } = await import('./filtering.js')
    return filterFragmentCheck(ctx)
  },
}

export const FILTERING_RULES: readonly LintRule[] = [filterFragment]
