/**
 * Between a flat list of files and the typed `Bundle`: each file gets its role by name, data
 * files merge into the tree, the manifest gets its defaults, and roots are checked. The reverse
 * direction lists the files a bundle writes, in one fixed order, so writing is deterministic.
 */

import { mergeDataFiles } from './data.js'
import { bundleError, reason } from './errors.js'
import { manifestBytes, normaliseManifest, parseManifest } from './manifest.js'
import { fileRole } from './paths.js'
import { checkBundleRoots } from './roots.js'
import type { Bundle, BundleEntry, BundleManifest, PatchOperation } from './types.js'

const decoder = new TextDecoder()
const encoder = new TextEncoder()

/** The path a bundle's signatures are written to. */
export const SIGNATURES_PATH = '.signatures.json'
/** The path a bundle's manifest is written to. */
export const MANIFEST_PATH = '.manifest'

/**
 * The bundle made of `entries` (regular files with normalised paths).
 * @throws BundleError naming the file whose content is wrong, or the root a module or datum violates.
 */
export function bundleFromEntries(entries: readonly BundleEntry[]): Bundle {
  const bundle: Bundle = { manifest: normaliseManifest({}), modules: [], dataFiles: [], data: {}, files: [] }
  let manifestPath: string | undefined
  const seen = new Set<string>()
  for (const entry of entries) {
    if (seen.has(entry.path)) {
      throw bundleError('bundle_entry_duplicate', `bundle has two files at ${JSON.stringify(entry.path)}`)
    }
    seen.add(entry.path)
    switch (fileRole(entry.path)) {
      case 'module':
        bundle.modules.push({ path: entry.path, source: decoder.decode(entry.raw), raw: entry.raw })
        break
      case 'data':
        bundle.dataFiles.push({ path: entry.path, raw: entry.raw })
        break
      case 'manifest':
        if (manifestPath !== undefined) {
          throw bundleError(
            'bundle_manifest_invalid',
            `bundle has two manifests: ${manifestPath} and ${entry.path}`,
          )
        }
        manifestPath = entry.path
        bundle.manifest = parseManifest(entry.raw, entry.path)
        bundle.manifestRaw = entry.raw
        break
      case 'signatures':
        bundle.signatures = parseSignatures(entry)
        break
      case 'patch':
        bundle.patch = parsePatch(entry)
        break
      default:
        bundle.files.push({ path: entry.path, raw: entry.raw })
    }
  }
  if (isDelta(bundle)) {
    const content = bundle.modules[0]?.path ?? bundle.dataFiles[0]?.path ?? bundle.files.find(isWasm)?.path
    if (content) {
      throw bundleError(
        'bundle_patch_invalid',
        `delta bundle must not contain policy, data or wasm files (found ${content})`,
      )
    }
  }
  bundle.data = mergeDataFiles(bundle.dataFiles)
  checkBundleRoots(bundle)
  return bundle
}

/** A delta bundle is one whose `patch.json` holds at least one operation (OPA's rule). */
export function isDelta(bundle: Bundle): boolean {
  return (bundle.patch?.data.length ?? 0) > 0
}

function isWasm(file: { path: string }): boolean {
  return file.path.endsWith('.wasm')
}

function parseJsonFile(
  entry: BundleEntry,
  code: 'bundle_signature_invalid' | 'bundle_patch_invalid',
): unknown {
  try {
    return JSON.parse(decoder.decode(entry.raw))
  } catch (err) {
    throw bundleError(code, `${entry.path} is not valid JSON: ${reason(err)}`, err)
  }
}

function parseSignatures(entry: BundleEntry): { signatures: string[] } {
  const value = parseJsonFile(entry, 'bundle_signature_invalid') as { signatures?: unknown } | null
  const signatures = value?.signatures
  if (!Array.isArray(signatures) || !signatures.every((s) => typeof s === 'string')) {
    throw bundleError(
      'bundle_signature_invalid',
      `${entry.path}: field signatures must be an array of strings`,
    )
  }
  return { ...value, signatures }
}

const OPS = new Set(['upsert', 'replace', 'remove'])

function parsePatch(entry: BundleEntry): { data: PatchOperation[] } {
  const value = parseJsonFile(entry, 'bundle_patch_invalid') as { data?: unknown } | null
  const ops = value?.data ?? []
  if (!Array.isArray(ops))
    throw bundleError('bundle_patch_invalid', `${entry.path}: field data must be an array`)
  ops.forEach((op: { op?: unknown; path?: unknown } | null, i) => {
    if (typeof op?.op !== 'string' || !OPS.has(op.op) || typeof op.path !== 'string') {
      throw bundleError(
        'bundle_patch_invalid',
        `${entry.path}: data[${i}] must have op upsert, replace or remove and a string path`,
      )
    }
  })
  return { data: ops as PatchOperation[] }
}

/**
 * The files a bundle is written as: signatures, manifest, patch, data files, modules, others.
 * A bundle built in memory without data files gets one `data.json` holding its data tree.
 */
export function entriesOfBundle(bundle: Bundle): BundleEntry[] {
  const entries: BundleEntry[] = []
  if (bundle.signatures) {
    entries.push({ path: SIGNATURES_PATH, raw: encoder.encode(JSON.stringify(bundle.signatures)) })
  }
  const manifest = manifestBytes(bundle)
  if (manifest) entries.push({ path: MANIFEST_PATH, raw: manifest })
  if (bundle.patch) entries.push({ path: 'patch.json', raw: encoder.encode(JSON.stringify(bundle.patch)) })
  entries.push(...dataEntries(bundle))
  for (const module of bundle.modules) entries.push({ path: module.path, raw: module.raw })
  for (const file of bundle.files) entries.push({ path: file.path, raw: file.raw })
  return entries
}

/** The data files a bundle writes and signs: its own, or one root `data.json` of its tree. */
export function dataEntries(bundle: Bundle): BundleEntry[] {
  if (bundle.dataFiles.length > 0) return bundle.dataFiles
  if (Object.keys(bundle.data).length === 0) return []
  return [{ path: 'data.json', raw: encoder.encode(JSON.stringify(bundle.data)) }]
}

/** A manifest with defaults, for builders that start from a partial one. */
export function manifestWithDefaults(manifest: BundleManifest | undefined): BundleManifest {
  return normaliseManifest(manifest ?? {})
}
