/**
 * Which versions of a bundle the registry drops: it keeps the active version always, then the
 * newest versions up to `max_bundles` in all, of which at most `max_deployed_bundles` were ever
 * deployed (those are the rollback targets; an older deployed version goes before a newer build).
 */

/** What retention needs to know of a version. */
export interface VersionFacts {
  version: number
  deploy_seq: number | null
}

/**
 * The versions to delete, given all versions newest first.
 * @example versionsToPrune([{version: 3, deploy_seq: 2}, {version: 2, deploy_seq: null}, {version: 1, deploy_seq: 1}], 3, {max_bundles: 2, max_deployed_bundles: 1}) // [1]
 */
export function versionsToPrune(
  newestFirst: readonly VersionFacts[],
  activeVersion: number | undefined,
  limits: { max_bundles: number; max_deployed_bundles: number },
): number[] {
  let kept = activeVersion === undefined ? 0 : 1
  let keptDeployed = kept
  const drop: number[] = []
  for (const row of newestFirst) {
    if (row.version === activeVersion) continue
    const deployed = row.deploy_seq !== null
    if (kept >= limits.max_bundles || (deployed && keptDeployed >= limits.max_deployed_bundles)) {
      drop.push(row.version)
      continue
    }
    kept++
    if (deployed) keptDeployed++
  }
  return drop
}
