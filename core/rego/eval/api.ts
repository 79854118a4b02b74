/**
 * The engine's public entry points for compiling and evaluating, re-exported by
 * `core/rego/index.ts`: `compile(modules, data, options)`, `evaluate(query, input, options)` and
 * `checkModules` (the compile-level errors `regent check` reports).
 */
import { RegoError, RegoErrors } from '../errors.js'
import type { Module } from '../syntax/ast.js'
import { fromJS, type Value } from '../values/index.js'
import { compilePolicy, type Policy, type PolicyOptions } from './policy.js'
import type { QueryOptions, QueryRun } from './query.js'

/** Options for {@link compile}. */
export type CompileOptions = PolicyOptions

/**
 * Compiles parsed modules (file name → module) with base data into a policy.
 * Throws `RegoErrors` (rego_compile_error, rego_type_error, rego_unsafe_var_error, ...).
 *
 * @example
 * const policy = compile({ 'authz.rego': parseModule(src, { file: 'authz.rego' }) }, { roles: {...} })
 */
export function compile(
  modules: Record<string, Module> | Map<string, Module>,
  data: unknown = {},
  options: CompileOptions = {},
): Policy {
  return compilePolicy(modules, data, options)
}

/** Options for {@link evaluate}. */
export interface EvaluateOptions extends Omit<QueryOptions, 'input'> {
  /** The compiled policy to query. */
  policy: Policy
}

/**
 * Evaluates `query` (Rego text) against `options.policy` with `input` (JSON-like or a value;
 * undefined for no input). Resolves to the result set; rejects with `RegoErrors` for a query that
 * does not compile and an `EvalError` for evaluation errors.
 *
 * @example
 * const { results } = await evaluate('data.authz.allow = x', { user: 'alice' }, { policy })
 */
export async function evaluate(query: string, input: unknown, options: EvaluateOptions): Promise<QueryRun> {
  const { policy, ...rest } = options
  const prepared = policy.query(query)
  const value: Value | undefined = input === undefined ? undefined : fromJS(input)
  return prepared.eval({ ...rest, ...(value !== undefined ? { input: value } : {}) })
}

/**
 * The compile errors of a module set (empty when it compiles), sorted as OPA reports them.
 * `regent check` calls this after parsing; `data` (a bundle's, with `check -b`) is checked
 * against the rules (`conflicting rule for data path`).
 */
export function checkModules(
  modules: Record<string, Module> | Map<string, Module>,
  options: Pick<CompileOptions, 'strict' | 'maxErrors' | 'inputType' | 'schemas' | 'builtins'> = {},
  data: unknown = {},
): RegoError[] {
  try {
    compilePolicy(modules, data, options)
    return []
  } catch (err) {
    if (err instanceof RegoErrors) return err.errors
    if (err instanceof RegoError) return [err]
    throw err
  }
}
