/**
 * The files a signature covers, in the order `opa build` lists them: modules, data files, wasm,
 * plans, the manifest, then every other file. The same list drives signing and verification, so
 * what is signed is exactly what is written.
 */
import { entriesOfBundle, SIGNATURES_PATH } from './assemble.js'
import { fileRole } from './paths.js'
import type { Bundle, BundleEntry } from './types.js'

const ORDER = {
  module: 0,
  data: 1,
  wasm: 2,
  plan: 3,
  manifest: 4,
  patch: 5,
  other: 5,
  signatures: 6,
} as const

/** Every file of `bundle` except its signatures, in signing order. */
export function signedFiles(bundle: Bundle): BundleEntry[] {
  return signedEntryOrder(entriesOfBundle(bundle).filter((entry) => entry.path !== SIGNATURES_PATH))
}

/** `entries` in signing order (stable within a kind). */
export function signedEntryOrder(entries: readonly BundleEntry[]): BundleEntry[] {
  return entries
    .map((entry, index) => ({ entry, index, rank: ORDER[fileRole(entry.path)] }))
    .sort((a, b) => a.rank - b.rank || a.index - b.index)
    .map(({ entry }) => entry)
}
