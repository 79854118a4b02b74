/**
 * The `filtering` category's rule, `filter-fragment` (rationale and behaviour: filtering.ts and
 * docs/lint.md). The compile pipeline it runs is loaded only when a file has annotations, so
 * linting policies without filter rules does not pay for loading compile/.
 */
import type { LintFile, LintRule } from '../../core/lint/types.js'

/**
 * filter-fragment: Rego in a filter rule (one with `compile` unknowns in its annotations) that the
 * compile endpoint cannot turn into SQL or UCAST, reported with the endpoint's own message.
 */
export const filterFragment: LintRule = {
  name: 'filter-fragment',
  category: 'filtering',
  description: 'Not supported by the compile endpoint',
  async check(ctx) {
    if (!hasAnnotations(ctx.all)) return []
    const { filterFragmentCheck } = await import('./filtering.js')
    return filterFragmentCheck(ctx)
  },
}

// Whether any file of the run has annotations, computed once per run (keyed by its file list).
const annotatedRuns = new WeakMap<readonly LintFile[], boolean>()

function hasAnnotations(all: readonly LintFile[]): boolean {
  let annotated = annotatedRuns.get(all)
  if (annotated === undefined) {
    annotated = all.some(
      (f) => f.module.annotations.length > 0 || f.module.rules.some((r) => (r.annotations?.length ?? 0) > 0),
    )
    annotatedRuns.set(all, annotated)
  }
  return annotated
}

export const FILTERING_RULES: readonly LintRule[] = [filterFragment]
