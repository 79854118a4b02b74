/**
 * BuildComprehensionIndices: the comprehensions of rule bodies the evaluator may compute once and
 * look up by the values of their outer variables (see comprehension-index.ts), as OPA's stage of
 * the same name finds them.
 */
import type { Compiler } from '../compiler.js'
import { indexComprehensions } from '../comprehension-index.js'

/** The stage. */
export function buildComprehensionIndices(c: Compiler): void {
  c.comprehensionIndices.clear()
  indexComprehensions(c.sortedModules(), (ref) => c.getArity(ref), c.comprehensionIndices)
}
