/**
 * The built-in registry: the explicit list of every built-in regent knows (no registration by
 * import side effect), lookup by name, OPA's capabilities JSON, and the one wrapper through which
 * the evaluator calls a built-in.
 */

import { isEvalError, QuerySuspended } from '../eval/errors.js'
import type { Location } from '../syntax/ast.js'
import { typeToJSON } from '../types/index.js'
import type { Value } from '../values/index.js'
import { AGGREGATES } from './aggregates.js'
import { ARRAYS } from './arrays.js'
import { BITS } from './bits.js'
import { CASTS } from './casts.js'
import { COMPARISON } from './comparison.js'
import type { BuiltinCaller, BuiltinContext } from './context.js'
import { CRYPTO } from './crypto.js'
import type {
  AsyncBuiltin,
  Builtin,
  BuiltinArgs,
  BuiltinResult,
  FunctionBuiltin,
  RelationBuiltin,
} from './define.js'
import { ENCODING } from './encoding.js'
import { BuiltinCallError, BuiltinError, OperandError } from './errors.js'
import { GLOB } from './glob.js'
import { GRAPH } from './graph.js'
import { GRAPHQL } from './graphql.js'
import { HTTP } from './http.js'
import { JSON_BUILTINS } from './json.js'
import { JWT } from './jwt.js'
import { NET } from './net.js'
import { NUMBERS } from './numbers.js'
import { OBJECTS } from './objects.js'
import { OPA } from './opa.js'
import { PROVIDERS } from './providers.js'
import { REDIS } from './redis.js'
import { REGEX } from './regex.js'
import { REGO } from './rego.js'
import { SEMVER_BUILTINS } from './semver.js'
import { SETS } from './sets.js'
import { splitN } from './split-n.js'
import { SQL } from './sql.js'
import { STRINGS } from './strings.js'
import { TEMPLATE } from './template.js'
import { TIME } from './time.js'
import { TRACING } from './tracing.js'
import { TYPES } from './types.js'
import { UNAVAILABLE_STORES } from './unavailable-stores.js'
import { UNITS_BUILTINS } from './units.js'
import { UUID } from './uuid.js'
import { WALK } from './walk.js'

export { defineBuiltin } from './define.js'

/** Every built-in, in one list. The type checker, capabilities and the evaluator read it. */
export const DEFAULT_BUILTINS: readonly Builtin[] = [
  ...AGGREGATES,
  ...ARRAYS,
  ...BITS,
  ...CASTS,
  ...COMPARISON,
  ...CRYPTO,
  ...ENCODING,
  ...GLOB,
  ...GRAPH,
  ...GRAPHQL,
  ...HTTP,
  ...JSON_BUILTINS,
  ...JWT,
  ...NET,
  ...NUMBERS,
  ...OBJECTS,
  ...OPA,
  ...PROVIDERS,
  ...REGEX,
  ...REGO,
  ...SEMVER_BUILTINS,
  ...SETS,
  ...STRINGS,
  splitN,
  ...TEMPLATE,
  ...TIME,
  ...TRACING,
  ...TYPES,
  ...UNITS_BUILTINS,
  ...UUID,
  ...WALK,
]

/**
 * EOPA's built-ins that query outside data stores: `sql.send`, `redis.query` (real clients) and the
 * declared-only `dynamodb.*`, `mongodb.*`, `neo4j.query`, `vault.send`.
 *
 * NOTE(builtins): kept out of DEFAULT_BUILTINS, so `regent capabilities`, `regent run` and bundles
 * checked against OPA's capabilities stay what OPA accepts; the service's data evaluation uses
 * {@link BUILTINS_WITH_STORES} (issue 21, docs/data-evaluation.md).
 */
export const STORE_BUILTINS: readonly Builtin[] = [...SQL, ...REDIS, ...UNAVAILABLE_STORES]

/** The default built-ins plus {@link STORE_BUILTINS}. */
export const BUILTINS_WITH_STORES: readonly Builtin[] = [...DEFAULT_BUILTINS, ...STORE_BUILTINS]

/** A name → built-in index; throws when two built-ins share a name. */
export function indexBuiltins(builtins: readonly Builtin[] = DEFAULT_BUILTINS): ReadonlyMap<string, Builtin> {
  const index = new Map<string, Builtin>()
  for (const b of builtins) {
    if (index.has(b.name)) throw new Error(`built-in ${b.name} is declared twice`)
    index.set(b.name, b)
  }
  return index
}

/** Maps whatever a built-in threw to the error the evaluator reports (OPA's `handleBuiltinErr`). */
export function toBuiltinCallError(builtin: Builtin, err: unknown, location?: Location): BuiltinCallError {
  if (err instanceof BuiltinCallError) return err
  // Out of budget or cancelled (meter.ts `chargeWork`), or suspended by a query the built-in runs
  // (`rego.compile` meeting `http.send`): not the built-in's failure, the query's.
  if (isEvalError(err) || err instanceof QuerySuspended) throw err
  const reason = err instanceof Error ? err.message : String(err)
  const code =
    err instanceof OperandError
      ? 'eval_type_error'
      : err instanceof BuiltinError
        ? err.code
        : 'eval_builtin_error'
  return new BuiltinCallError(code, builtin.name, `${builtin.name}: ${reason}`, location, err)
}

/**
 * Calls a synchronous built-in with the evaluator's arguments. Errors come out as
 * {@link BuiltinCallError} (operand errors as `eval_type_error`, the rest `eval_builtin_error`).
 * Returns undefined when the built-in has no result.
 */
export function callBuiltin(
  builtin: FunctionBuiltin,
  ctx: BuiltinContext,
  args: readonly Value[],
  location?: Location,
  caller?: BuiltinCaller,
): BuiltinResult {
  try {
    return builtin.impl(ctx, args as BuiltinArgs, location, caller)
  } catch (err) {
    throw toBuiltinCallError(builtin, err, location)
  }
}

/** Calls an asynchronous built-in (http.send); the promise rejects with a {@link BuiltinCallError}. */
export async function callAsyncBuiltin(
  builtin: AsyncBuiltin,
  ctx: BuiltinContext,
  args: readonly Value[],
  location?: Location,
): Promise<BuiltinResult> {
  try {
    return await builtin.impl(ctx, args as BuiltinArgs, location)
  } catch (err) {
    throw toBuiltinCallError(builtin, err, location)
  }
}

/** Calls a relation (walk) and collects its results. */
export function callRelation(
  builtin: RelationBuiltin,
  ctx: BuiltinContext,
  args: readonly Value[],
  location?: Location,
): Value[] {
  try {
    // Collected whole (the evaluator unifies each result), which is why relations charge the
    // budget for each result as they yield it (`walk`).
    return [...builtin.impl(ctx, args as BuiltinArgs, location)]
  } catch (err) {
    throw toBuiltinCallError(builtin, err, location)
  }
}

/** One entry of OPA's capabilities `builtins` list. */
export interface CapabilityBuiltinJSON {
  name: string
  description?: string
  categories?: string[]
  decl: Record<string, unknown>
  infix?: string
  relation?: boolean
  deprecated?: boolean
  nondeterministic?: boolean
}

/**
 * The capabilities entry for a built-in, field order as OPA's Go struct. `minimal` (the
 * capabilities file form) leaves out descriptions, categories and argument names.
 */
export function builtinCapability(
  builtin: Builtin,
  options: { minimal?: boolean } = {},
): CapabilityBuiltinJSON {
  const minimal = options.minimal ?? true
  const out: CapabilityBuiltinJSON = { name: builtin.name, decl: {} }
  if (!minimal) {
    out.description = builtin.description
    out.categories = [builtin.category]
  }
  out.decl = typeToJSON(builtin.decl, { minimal })
  if (builtin.infix) out.infix = builtin.infix
  if (builtin.kind === 'relation') out.relation = true
  if (builtin.deprecated) out.deprecated = true
  if (builtin.nondeterministic) out.nondeterministic = true
  return out
}

/** Capabilities `builtins` for a list, sorted by name as OPA writes them. */
export function builtinCapabilities(
  builtins: readonly Builtin[] = DEFAULT_BUILTINS,
  options: { minimal?: boolean } = {},
): CapabilityBuiltinJSON[] {
  return [...builtins]
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
    .map((b) => builtinCapability(b, options))
}
