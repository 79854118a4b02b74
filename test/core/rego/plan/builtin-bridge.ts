/**
 * Calls the engine's built-in implementations for the IR interpreter of the plan tests, with one
 * built-in context per plan run (no caches shared with the engine under comparison).
 */
import { type BuiltinContext, createBuiltinContext } from '../../../../core/rego/builtins/context.js'
import type { Builtin } from '../../../../core/rego/builtins/define.js'
import { callBuiltin as callRegistered } from '../../../../core/rego/builtins/registry.js'
import type { Value } from '../../../../core/rego/values/index.js'

/** The context of one plan run: nondeterministic built-ins answer alike within it (time, uuid). */
export function runContext(): BuiltinContext {
  return createBuiltinContext()
}

/** Calls a synchronous built-in; throws what the built-in throws. */
export function callBuiltin(
  builtin: Builtin & { kind: 'function' },
  ctx: BuiltinContext,
  args: readonly Value[],
): Value | undefined {
  return callRegistered(builtin, ctx, args)
}
