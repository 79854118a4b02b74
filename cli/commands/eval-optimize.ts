/**
 * `regent eval -O N` (N > 0) with `-d` or `-b`: OPA first builds an optimized bundle of those
 * files, and that build needs an entrypoint (`-e`, or `entrypoint: true` in a METADATA block), so
 * it refuses the evaluation without one. regent evaluates the files as they are (the results are
 * the same at every level) but refuses the same command lines, so that scripts behave alike.
 */
import type { Module } from '../../core/rego/syntax/ast.js'

/** The flags the check reads. */
export interface OptimizeFlags {
  optimize: string
  entrypoint: string[]
  data: string[]
  bundle: string[]
}

/**
 * OPA's message when `-O` asks for an optimized bundle that has no entrypoint, or undefined when
 * the evaluation may go ahead (no `-O`, nothing loaded, or an entrypoint given or annotated).
 */
export function missingEntrypoint(
  modules: ReadonlyMap<string, Module>,
  flags: OptimizeFlags,
): string | undefined {
  if (Number(flags.optimize) <= 0 || flags.entrypoint.length > 0) return undefined
  if (flags.data.length === 0 && flags.bundle.length === 0) return undefined
  for (const module of modules.values()) {
    if (module.annotations.some((a) => a.entrypoint)) return undefined
    if (module.rules.some((r) => r.annotations?.some((a) => a.entrypoint))) return undefined
  }
  return 'bundle optimizations require at least one entrypoint'
}
