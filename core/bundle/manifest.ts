/**
 * `.manifest`: parsing with a type check per field (the error names the field), OPA's defaults
 * (roots `[""]`, leading and trailing `/` trimmed from roots), and the bytes to write back.
 */
import { bundleError, reason } from './errors.js'
import type { Bundle, BundleManifest } from './types.js'

const decoder = new TextDecoder()
const encoder = new TextEncoder()

/**
 * The manifest in `raw` with defaults applied.
 * @throws BundleError `bundle_manifest_invalid` naming the file and the field.
 */
export function parseManifest(raw: Uint8Array, path = '.manifest'): BundleManifest {
  let value: unknown
  try {
    value = JSON.parse(decoder.decode(raw))
  } catch (err) {
    throw bundleError('bundle_manifest_invalid', `manifest ${path} is not valid JSON: ${reason(err)}`, err)
  }
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw bundleError('bundle_manifest_invalid', `manifest ${path} must be a JSON object`)
  }
  return normaliseManifest(value as BundleManifest, path)
}

/** Checks field types and applies defaults; `path` names the manifest in errors. */
export function normaliseManifest(manifest: BundleManifest, path = '.manifest'): BundleManifest {
  const bad = (field: string, want: string) =>
    bundleError('bundle_manifest_invalid', `manifest ${path}: field ${field} must be ${want}`)
  const out: BundleManifest = { ...manifest }
  if (out.revision !== undefined && typeof out.revision !== 'string') throw bad('revision', 'a string')
  if (out.roots === undefined || out.roots === null) out.roots = ['']
  else if (!Array.isArray(out.roots) || !out.roots.every((r) => typeof r === 'string')) {
    throw bad('roots', 'an array of strings')
  } else out.roots = out.roots.map(trimSlashes)
  if (out.wasm !== undefined && out.wasm !== null && !Array.isArray(out.wasm)) throw bad('wasm', 'an array')
  if (out.rego_version !== undefined && out.rego_version !== 0 && out.rego_version !== 1) {
    throw bad('rego_version', '0 or 1')
  }
  const versions = out.file_rego_versions
  if (versions !== undefined && versions !== null) {
    if (typeof versions !== 'object' || Array.isArray(versions)) throw bad('file_rego_versions', 'an object')
    for (const [glob, version] of Object.entries(versions)) {
      if (version !== 0 && version !== 1) throw bad(`file_rego_versions[${JSON.stringify(glob)}]`, '0 or 1')
    }
  }
  const metadata = out.metadata
  if (
    metadata !== undefined &&
    metadata !== null &&
    (typeof metadata !== 'object' || Array.isArray(metadata))
  ) {
    throw bad('metadata', 'an object')
  }
  return out
}

/** A root as OPA keeps it: without leading or trailing slashes. */
export function trimSlashes(root: string): string {
  return root.replace(/^\/+|\/+$/g, '')
}

/**
 * Whether the manifest says nothing beyond the defaults; such a manifest is not written (OPA's
 * writer omits an empty `.manifest`) and so not signed either.
 */
export function isDefaultManifest(manifest: BundleManifest): boolean {
  for (const [key, value] of Object.entries(manifest)) {
    if (value === undefined) continue
    if (key === 'roots' && Array.isArray(value) && value.length === 1 && value[0] === '') continue
    return false
  }
  return true
}

/**
 * The `.manifest` bytes of a bundle, or undefined when none is written. The bytes read are reused
 * while they still describe `bundle.manifest`, so the digest of an unchanged manifest is kept.
 */
export function manifestBytes(bundle: Bundle): Uint8Array | undefined {
  if (bundle.manifestRaw) {
    try {
      const previous = normaliseManifest(JSON.parse(decoder.decode(bundle.manifestRaw)) as BundleManifest)
      if (sameJson(previous, bundle.manifest)) return bundle.manifestRaw
    } catch {
      // Fall through and write the manifest afresh.
    }
  }
  if (isDefaultManifest(bundle.manifest)) return undefined
  return encoder.encode(JSON.stringify(bundle.manifest))
}

function sameJson(a: unknown, b: unknown): boolean {
  return JSON.stringify(sortKeys(a)) === JSON.stringify(sortKeys(b))
}

function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys)
  if (typeof value !== 'object' || value === null) return value
  const entries = Object.entries(value).filter(([, v]) => v !== undefined)
  entries.sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))
  return Object.fromEntries(entries.map(([k, v]) => [k, sortKeys(v)]))
}
