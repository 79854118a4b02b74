/**
 * Merging several bundles into one, as `opa build -b a -b b` does: roots must not overlap across
 * bundles (the error names both bundles and both roots), modules and data are combined, a module
 * path may appear once, data files at the same path are combined without losing number lexemes.
 * The result's revision and rego_version are kept only when all inputs agree; wasm resolvers are
 * concatenated; metadata and other fields are not merged.
 */
import { dataEntries } from './assemble.js'
import { mergeDataFiles } from './data.js'
import { combineData, type DataSource } from './data-combine.js'
import { BundleError, bundleError } from './errors.js'
import { dataPathOf } from './paths.js'
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
  const dataSources: DataSource[] = []
  for (const { name, bundle } of inputs) {
    for (const item of [...bundle.modules, ...bundle.files]) {
      const other = paths.get(item.path)
      if (other !== undefined) {
        throw bundleError('bundle_merge_conflict', `bundles ${other} and ${name} both contain ${item.path}`)
      }
      paths.set(item.path, name)
    }
    merged.modules.push(...bundle.modules)
    merged.files.push(...bundle.files)
    for (const file of dataEntries(bundle)) {
      dataSources.push({
        dataPath: dataPathOf(file.path),
        raw: file.raw,
        name: `bundle ${name}: ${file.path}`,
        format: file.path.endsWith('.json') ? 'json' : 'yaml',
      })
    }
  }
  try {
    merged.dataFiles = combineData(dataSources)
    merged.data = mergeDataFiles(merged.dataFiles)
  } catch (err) {
    if (err instanceof BundleError && err.code === 'bundle_data_conflict') {
      throw bundleError('bundle_merge_conflict', err.message, err)
    }
    throw err
  }
  return merged
}

function mergedManifest(inputs: readonly NamedBundle[]): BundleManifest {
  const roots = inputs.flatMap(({ bundle }) => bundle.manifest.roots ?? [''])
  const revisions = new Set(inputs.map(({ bundle }) => bundle.manifest.revision ?? ''))
  const manifest: BundleManifest = { roots }
  const [only] = revisions
  if (revisions.size === 1 && only) manifest.revision = only
  const wasm = inputs.flatMap(({ bundle }) => bundle.manifest.wasm ?? [])
  if (wasm.length > 0) manifest.wasm = wasm
  const versions = new Set(inputs.map(({ bundle }) => bundle.manifest.rego_version))
  const [version] = versions
  if (versions.size === 1 && version !== undefined) manifest.rego_version = version
  return manifest
}
