/**
 * Calls the engine's built-in implementations for the IR interpreter of the plan tests, with a
 * fresh built-in context per call (no caches shared with the engine under comparison).
 */
import { createBuiltinContext } from '../../../../core/rego/builtins/context.js'
import type { Builtin } from '../../../../core/rego/builtins/define.js'
import { callBuiltin as callRegistered } from '../../../../core/rego/builtins/registry.js'
import type { Value } from '../../../../core/rego/values/index.js'

/** Calls a synchronous built-in; throws what the built-in throws. */
export function callBuiltin(
  builtin: Builtin & { kind: 'function' },
  args: readonly Value[],
): Value | undefined {
  return callRegistered(builtin, createBuiltinContext(), args)
}
