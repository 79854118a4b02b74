/**
 * Column masks: the mask rule (from `options.maskRule` or a `mask_rule` annotation) is evaluated as a
 * plain query with the request's input, and its value, conventionally
 * `{"<table>": {"<column>": {"replace": {"value": …}} | {}}}`, is attached to every target's result.
 * The evaluation itself belongs to the Rego engine: callers pass it in as `evaluate`.
 */

import { isLosslessNumber } from 'lossless-json'
import type { RefTerm, Term } from '../core/rego/syntax/ast.js'
import { resolveInPackage } from './annotations.js'
import { backendFailure, internalFailure, invalidParameter } from './errors.js'
import { refToString } from './print.js'
import { parseRefText } from './refs.js'
import type { CompileBackend, JsonObject, JsonValue } from './types.js'

/**
 * The mask rule a request names: a full `data.` ref as is, anything else below the package of the
 * filter rule (`masks` with `data.filters.include` is `data.filters.masks`).
 * @throws CompileFailure 400 `error(s) occurred while parsing mask_rule name: …`.
 */
export function resolveRequestMaskRule(text: string, filterRule: RefTerm | undefined): RefTerm {
  let parsed: RefTerm
  try {
    parsed = parseRefText(text)
  } catch (err) {
    throw invalidParameter(`error(s) occurred while parsing mask_rule name: ${(err as Error).message}`)
  }
  if (text.startsWith('data.')) return parsed
  const pkg: Term[] = filterRule ? filterRule.value.slice(0, -1) : [{ type: 'var', value: 'data' }]
  return resolveInPackage(parsed.value, pkg)
}

/**
 * Evaluates the mask rule and returns its object, or undefined when the rule is undefined or its value
 * is an empty object (no masks key is written then).
 * @throws CompileFailure 500 `evaluate masks: …` when evaluation fails, `convert masks: …` when the
 *   value is not an object; 400 for static errors of the policy.
 */
export async function evaluateMasks(
  evaluate: CompileBackend['evaluate'],
  maskRule: RefTerm,
  input: JsonValue | undefined,
): Promise<JsonObject | undefined> {
  let value: JsonValue | undefined
  try {
    value = await evaluate({ query: refToString(maskRule.value), input })
  } catch (err) {
    throw backendFailure(err, 'evaluate masks')
  }
  if (value === undefined) return undefined
  if (value === null || typeof value !== 'object' || Array.isArray(value) || isLosslessNumber(value)) {
    throw internalFailure(`convert masks: ${refToString(maskRule.value)} is not an object`)
  }
  const masks = value as JsonObject
  return Object.keys(masks).length === 0 ? undefined : masks
}
