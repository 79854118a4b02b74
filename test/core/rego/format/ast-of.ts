import type { Module } from '../../../../core/rego/syntax/ast.js'
import { stringifyOpaJson } from '../../../../core/rego/syntax/json.js'

/**
 * The AST in OPA JSON without locations or comments, as formatting must keep it: imports compared
 * as a set (opa fmt sorts them within a group) and `:=` vs `=` in rule heads ignored (v1's one
 * intended rewrite).
 */
export function astOf(m: Module): string {
  const sorted = {
    ...m,
    imports: [...m.imports].sort((a, b) => stringifyOpaJson(a).localeCompare(stringifyOpaJson(b))),
  }
  return stringifyOpaJson(sorted, { comments: false })
    .replaceAll(',"assign":true', '')
    .replaceAll('"assign":true,', '')
}
