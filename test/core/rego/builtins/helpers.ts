/** Shared helpers for the built-in tests: call a built-in by name with JSON-ish arguments. */
import { expect } from 'vitest'
import {
  type BuiltinContext,
  createBuiltinContext,
  seededRandom,
} from '../../../../core/rego/builtins/context.js'
import type { Builtin } from '../../../../core/rego/builtins/define.js'
import { BuiltinCallError } from '../../../../core/rego/builtins/errors.js'
import {
  callAsyncBuiltin,
  callBuiltin,
  callRelation,
  DEFAULT_BUILTINS,
  indexBuiltins,
} from '../../../../core/rego/builtins/registry.js'
import { fromJS, parseJSON, toJSONText, type Value } from '../../../../core/rego/values/index.js'

const INDEX = indexBuiltins(DEFAULT_BUILTINS)

/** A deterministic context (fixed clock and random source). */
export function testContext(overrides: Parameters<typeof createBuiltinContext>[0] = {}): BuiltinContext {
  return createBuiltinContext({ random: seededRandom(42), print: () => {}, ...overrides })
}

/** The declared built-in called `name`. */
export function builtin(name: string): Builtin {
  const b = INDEX.get(name)
  if (!b) throw new Error(`no built-in ${name}`)
  return b
}

/**
 * Converts test arguments: strings starting with `json:` are parsed losslessly (also inside
 * arrays), the rest via fromJS.
 */
export function val(x: unknown): Value {
  if (typeof x === 'string' && x.startsWith('json:')) return parseJSON(x.slice(5))
  if (Array.isArray(x)) return x.map(val)
  return fromJS(x)
}

/** Calls a synchronous built-in and returns its result (undefined for no result). */
export function call(name: string, ...args: unknown[]): Value | undefined {
  const b = builtin(name)
  if (b.kind !== 'function') throw new Error(`${name} is not a synchronous function`)
  expect(args.length).toBe(b.arity)
  return callBuiltin(b, testContext(), args.map(val))
}

/** Calls with an explicit context. */
export function callWith(ctx: BuiltinContext, name: string, ...args: unknown[]): Value | undefined {
  const b = builtin(name)
  if (b.kind !== 'function') throw new Error(`${name} is not a synchronous function`)
  return callBuiltin(b, ctx, args.map(val))
}

/** Calls an asynchronous built-in. */
export async function callAsync(
  ctx: BuiltinContext,
  name: string,
  ...args: unknown[]
): Promise<Value | undefined> {
  const b = builtin(name)
  if (b.kind !== 'async') throw new Error(`${name} is not asynchronous`)
  return callAsyncBuiltin(b, ctx, args.map(val))
}

/** Calls a relation and returns all results. */
export function callAll(name: string, ...args: unknown[]): Value[] {
  const b = builtin(name)
  if (b.kind !== 'relation') throw new Error(`${name} is not a relation`)
  return callRelation(b, testContext(), args.map(val))
}

/** Canonical JSON text of a call's result, or 'undefined'. */
export function json(name: string, ...args: unknown[]): string {
  const r = call(name, ...args)
  return r === undefined ? 'undefined' : toJSONText(r)
}

/** The BuiltinCallError a call throws (fails the test when it does not throw). */
export function failure(name: string, ...args: unknown[]): BuiltinCallError {
  try {
    call(name, ...args)
  } catch (err) {
    if (err instanceof BuiltinCallError) return err
    throw err
  }
  throw new Error(`${name} did not fail`)
}

/** Asserts a call fails with `code` and a message containing `message`. */
export function expectError(
  code: 'eval_type_error' | 'eval_builtin_error',
  message: string,
  name: string,
  ...args: unknown[]
) {
  const err = failure(name, ...args)
  expect(err.code).toBe(code)
  expect(err.message).toContain(message)
}
