/**
 * The built-ins of each released version of the reference engine (OPA), for
 * `regent capabilities --version vX.Y.Z` and `--capabilities vX.Y.Z`: regent's own built-in
 * declarations, limited to those the release had according to OPA's `builtin_metadata.json`
 * (cli/opa-builtin-versions.ts, generated from it). Only the built-in set is versioned: the source
 * records when each built-in arrived, not the keywords or language features of each release.
 */
import type { Builtin } from '../core/rego/builtins/define.js'
import { DEFAULT_BUILTINS } from '../core/rego/builtins/registry.js'
import { OPA_BUILTIN_INTRODUCED, OPA_RELEASES } from './opa-builtin-versions.js'

/** `v0.40.0` for `0.40.0` or `v0.40.0`. */
function normalized(version: string): string {
  return version.startsWith('v') ? version : `v${version}`
}

/** Whether `version` is a release the generated data covers. */
export function isKnownRelease(version: string): boolean {
  return OPA_RELEASES.includes(normalized(version))
}

/**
 * The built-ins release `version` had, as regent declares them; undefined for a release the data
 * does not cover.
 * @example releaseBuiltins('v0.17.0')?.some((b) => b.name === 'array.reverse') // false (v0.36.0)
 */
export function releaseBuiltins(version: string): readonly Builtin[] | undefined {
  const index = OPA_RELEASES.indexOf(normalized(version))
  if (index < 0) return undefined
  return DEFAULT_BUILTINS.filter((b) => {
    const introduced = OPA_BUILTIN_INTRODUCED[b.name]
    return introduced !== undefined && OPA_RELEASES.indexOf(introduced) <= index
  })
}

/** The releases covered, oldest first. */
export function knownReleases(): readonly string[] {
  return OPA_RELEASES
}
