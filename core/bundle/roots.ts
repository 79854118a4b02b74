/**
 * Manifest roots: which part of `data` a bundle owns. A root `a/b` owns `data.a.b` and everything
 * below it; `''` owns all of `data`. Roots of one bundle must not overlap, every module's package
 * and every data value must fall under a root, and bundles merged together must not share roots.
 */

import { isObject } from './data.js'
import { bundleError } from './errors.js'
import { packagePath } from './package-path.js'
import type { Bundle } from './types.js'

/** Whether `path` (slash-separated) lies under one of `roots`. */
export function rootsContain(roots: readonly string[], path: string): boolean {
  return roots.some((root) => isUnder(path, root))
}

/** Whether `path` equals `root` or lies below it, segment-wise (`ab` is not under `a`). */
export function isUnder(path: string, root: string): boolean {
  return root === '' || path === root || path.startsWith(`${root}/`)
}

/** Two roots overlap when either lies under the other. */
export function rootsOverlap(a: string, b: string): boolean {
  return isUnder(a, b) || isUnder(b, a)
}

/** @throws BundleError `bundle_roots_overlap` naming both roots. */
export function checkRootsDisjoint(roots: readonly string[], what = 'manifest'): void {
  for (let i = 0; i < roots.length; i++) {
    for (let j = i + 1; j < roots.length; j++) {
      if (rootsOverlap(roots[i]!, roots[j]!)) {
        throw bundleError(
          'bundle_roots_overlap',
          `${what} has overlapping roots: ${JSON.stringify(roots[i])} and ${JSON.stringify(roots[j])}`,
        )
      }
    }
  }
}

/**
 * Checks a bundle's modules, data and patch against its roots, as OPA does when reading.
 * @throws BundleError `bundle_roots_violation` naming the module, data path or patch operation.
 */
export function checkBundleRoots(bundle: Bundle): void {
  const roots = bundle.manifest.roots ?? ['']
  checkRootsDisjoint(roots)
  for (const module of bundle.modules) {
    const pkg = packagePath(module.source, module.path)
    if (!rootsContain(roots, pkg)) {
      throw bundleError(
        'bundle_roots_violation',
        `manifest roots ${JSON.stringify(roots)} do not permit package ${pkg.replaceAll('/', '.')} of module ${module.path}`,
      )
    }
  }
  // The root '' permits all data (and is then the only root): no need to walk the tree.
  if (!roots.includes('')) checkDataRoots(bundle.data, '', roots)
  for (const op of bundle.patch?.data ?? []) {
    const path = op.path.replace(/^\/+|\/+$/g, '')
    if (!rootsContain(roots, path)) {
      throw bundleError(
        'bundle_roots_violation',
        `manifest roots ${JSON.stringify(roots)} do not permit patch ${op.op} at path /${path}`,
      )
    }
  }
}

// OPA's walk: a value under a root is fine; an object on the way to a deeper root is descended.
function checkDataRoots(node: unknown, path: string, roots: readonly string[]): void {
  if (rootsContain(roots, path)) return
  if (isObject(node) && roots.some((root) => isUnder(root, path))) {
    for (const [key, child] of Object.entries(node))
      checkDataRoots(child, path === '' ? key : `${path}/${key}`, roots)
    return
  }
  throw bundleError(
    'bundle_roots_violation',
    `manifest roots ${JSON.stringify(roots)} do not permit data at path /${path} (check the bundle's directory layout)`,
  )
}
