/**
 * The check `regent build` runs before it writes a bundle, as `opa build` does: every module
 * parses (in the Rego version its manifest gives it) and the whole set compiles with the same
 * compiler `regent check` uses, limited to the built-ins of `--capabilities` when given.
 */

import type { Builtin } from '../rego/builtins/define.js'
import { RegoError, RegoErrors } from '../rego/errors.js'
import { checkModules } from '../rego/eval/api.js'
import type { Module } from '../rego/syntax/ast.js'
import { parseModuleWithErrors } from '../rego/syntax/module-parser.js'
import type { Bundle } from './index.js'

/** The Rego version of a bundle module: `file_rego_versions`, then `rego_version`, then v1. */
export function bundleModuleVersion(manifest: Bundle['manifest'], path: string): 'v0' | 'v1' {
  const version =
    manifest.file_rego_versions?.[path] ?? manifest.file_rego_versions?.[`/${path}`] ?? manifest.rego_version
  return version === 0 ? 'v0' : 'v1'
}

/**
 * Parses and compiles the modules of `bundle`.
 * @throws RegoErrors with the parse errors, else the compile errors (at most `maxErrors`).
 */
export function compileBundleModules(
  bundle: Bundle,
  options: { builtins?: readonly Builtin[]; maxErrors?: number } = {},
): void {
  const maxErrors = options.maxErrors ?? 10
  const parsed = new Map<string, Module>()
  const errors: RegoError[] = []
  for (const module of bundle.modules) {
    const result = parseModuleWithErrors(module.source, {
      file: module.path,
      regoVersion: bundleModuleVersion(bundle.manifest, module.path),
      maxErrors,
    })
    errors.push(...result.errors)
    if (result.module) parsed.set(module.path, result.module)
  }
  if (errors.length === 0) {
    errors.push(
      ...checkModules(parsed, { maxErrors, ...(options.builtins ? { builtins: options.builtins } : {}) }),
    )
  }
  if (errors.length === 0) return
  const shown = errors.slice(0, maxErrors)
  if (errors.length > maxErrors) shown.push(new RegoError('rego_compile_error', 'error limit reached'))
  throw new RegoErrors(shown)
}
