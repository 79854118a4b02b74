/**
 * Merging several bundles into one, as `opa build -b a -b b` does: roots must not overlap across
 * bundles (the error names both bundles and both roots), modules and data are combined, a module
 * path may appear once. The result's revision is empty unless all inputs agree; metadata and
 * other manifest fields are not merged (OPA drops them too).
 */

import { insertValue } from './data.js'
import { bundleError } from './errors.js'
import { rootsOverlap } from './roots.js'
import type { Bundle, BundleManifest } from './types.js'

/** A bundle and the name it is reported under (its path, usually). */
export interface NamedBundle {
  name: string
  bundle: Bundle
}

/**
 * One bundle holding all of `inputs` (their signatures dropped: the merged bundle is re-signed).
 * @throws BundleError `bundle_merge_conflict` naming both bundles.
 */
export function mergeBundles(inputs: readonly NamedBundle[]): Bundle {
  if (inputs.length === 1) return { ...inputs[0]!.bundle, signatures: undefined }
  const owners: Array<{ root: string; name: string }> = []
  for (const { name, bundle } of inputs) {
    for (const root of bundle.manifest.roots ?? ['']) {
      const clash = owners.find((owner) => rootsOverlap(owner.root, root))
      if (clash) {
        throw bundleError(
          'bundle_merge_conflict',
          `bundles ${clash.name} and ${name} have overlapping roots ${JSON.stringify(clash.root)} and ${JSON.stringify(root)}`,
        )
      }
      owners.push({ root, name })
    }
  }
  const merged: Bundle = { manifest: mergedManifest(inputs), modules: [], dataFiles: [], data: {}, files: [] }
  const paths = new Map<string, string>()
  for (const { name, bundle } of inputs) {
    for (const item of [...bundle.modules, ...bundle.dataFiles, ...bundle.files]) {
      const other = paths.get(item.path)
      if (other !== undefined) {
        throw bundleError('bundle_merge_conflict', `bundles ${other} and ${name} both contain ${item.path}`)
      }
      paths.set(item.path, name)
    }
    merged.modules.push(...bundle.modules)
    merged.dataFiles.push(...bundle.dataFiles)
    merged.files.push(...bundle.files)
    const conflict = insertValue(merged.data, [], structuredClone(bundle.data))
    if (conflict) {
      throw bundleError(
        'bundle_merge_conflict',
        `bundle ${name} conflicts with another bundle at data.${conflict.join('.')}`,
      )
    }
  }
  return merged
}

function mergedManifest(inputs: readonly NamedBundle[]): BundleManifest {
  const roots = inputs.flatMap(({ bundle }) => bundle.manifest.roots ?? [''])
  const revisions = new Set(inputs.map(({ bundle }) => bundle.manifest.revision ?? ''))
  const manifest: BundleManifest = { roots }
  const [only] = revisions
  if (revisions.size === 1 && only) manifest.revision = only
  return manifest
}
