/**
 * The reference tool's binary bundle (variant A's `bundle convert`): a gzipped tarball like any
 * bundle, whose one `/data.json` holds the whole data tree in binary JSON, beside the modules
 * and `.manifest` as they were. Signatures, wasm and plan files are dropped, as the reference
 * drops them (a signature over the JSON text would not match the binary file anyway).
 * Readers detect the binary `data.json` by its first byte (`dataFileText`), so these bundles
 * load wherever tarballs do.
 */
import { parse as parseLossless } from 'lossless-json'
import { MANIFEST_PATH } from './assemble.js'
import { binaryJsonToText, isBinaryJson } from './binary-json-read.js'
import { encodeBinaryJson } from './binary-json-write.js'
import { insertValue, isObject, parseYamlData } from './data.js'
import { bundleError } from './errors.js'
import { isDefaultManifest } from './manifest.js'
import { dataPathOf } from './paths.js'
import { writeTarball } from './tar-write.js'
import type { Bundle, BundleDataFile, BundleEntry } from './types.js'

const encoder = new TextEncoder()
const decoder = new TextDecoder()

/** What converting dropped, for the command to warn about. */
export interface BinaryBundleResult {
  bytes: Uint8Array
  droppedSignatures: boolean
  droppedFiles: string[]
}

/**
 * `bundle` as a binary bundle. Data numbers keep the digits they were written with.
 * @throws BundleError when a data file cannot be read.
 */
export async function toBinaryBundle(bundle: Bundle): Promise<BinaryBundleResult> {
  const entries: BundleEntry[] = []
  if (bundle.patch && bundle.patch.data.length > 0) {
    // A delta bundle carries no data tree: its patch is kept as JSON, as the reference keeps it.
    entries.push({ path: 'patch.json', raw: encoder.encode(JSON.stringify(bundle.patch)) })
  } else {
    entries.push({ path: 'data.json', raw: encodeBinaryJson(exactDataTree(bundle.dataFiles, bundle.data)) })
    for (const module of bundle.modules) entries.push({ path: module.path, raw: module.raw })
  }
  if (!isDefaultManifest(bundle.manifest)) {
    entries.push({ path: MANIFEST_PATH, raw: encoder.encode(`${JSON.stringify(bundle.manifest)}\n`) })
  }
  return {
    bytes: await writeTarball(entries),
    droppedSignatures: (bundle.signatures?.signatures.length ?? 0) > 0,
    droppedFiles: bundle.files.map((f) => f.path),
  }
}

/** Whether a bundle was read from a binary bundle (its data files hold binary JSON). */
export function isBinaryBundle(bundle: Bundle): boolean {
  return bundle.dataFiles.some((file) => file.path.endsWith('.json') && isBinaryJson(file.raw))
}

/**
 * The JSON text of a binary bundle's data (`bundle dump`).
 * @throws BundleError when the bundle has no binary `data.json`.
 */
export function binaryBundleData(bundle: Bundle): string {
  const file = bundle.dataFiles.find((f) => f.path === 'data.json')
  if (!file || !isBinaryJson(file.raw)) {
    throw bundleError(
      'bundle_data_invalid',
      'not a binary bundle: its data.json is JSON text (make one with `regent bundle convert`)',
    )
  }
  return binaryJsonToText(file.raw)
}

/**
 * The data tree with numbers as lossless-json numbers (their digits as written), so that
 * converting `12345678901234567890` does not round it. YAML numbers are read exactly too.
 */
function exactDataTree(files: readonly BundleDataFile[], fallback: Record<string, unknown>): unknown {
  if (files.length === 0) return fallback
  const tree: Record<string, unknown> = {}
  for (const file of files) {
    const text = isBinaryJson(file.raw) ? binaryJsonToText(file.raw) : decoder.decode(file.raw)
    const value = file.path.endsWith('.json')
      ? parseLossless(text)
      : parseYamlData(text, `data file ${file.path}`, { exactIntegers: true })
    const at = dataPathOf(file.path)
    const segments = at === '' ? [] : at.split('/')
    if (segments.length === 0 && !isObject(value)) {
      throw bundleError(
        'bundle_data_invalid',
        `data file ${file.path} at the bundle root must hold an object`,
      )
    }
    // Conflicts were already refused when the bundle was read.
    insertValue(tree, segments, value)
  }
  return tree
}
