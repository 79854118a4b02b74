/**
 * How a built-in is declared: name, category, description, argument and result types, flags and
 * the implementation, in one object next to the code. The type checker, `regent capabilities`,
 * the docs and partial evaluation all read these declarations.
 *
 * NOTE(builtins): this lives apart from registry.ts so that family files can import it while
 * registry.ts imports the families, without an import cycle.
 */
import type { Location } from '../syntax/ast.js'
import type { FunctionType, NamedType, Type } from '../types/index.js'
import { t } from '../types/index.js'
import type { Value } from '../values/index.js'
import type { BuiltinCaller, BuiltinContext } from './context.js'

/** The result of a function call: a value, or undefined for "no result" (Rego undefined). */
export type BuiltinResult = Value | undefined

/**
 * The arguments of a call. The registry guarantees `arity` of them, so implementations can
 * destructure `[x, y]` without undefined checks (the tuple type is only a typing convenience).
 */
export type BuiltinArgs = readonly [Value, Value, Value, Value, Value, ...Value[]]

/** What every declaration states. */
interface BuiltinSpecBase {
  /** The name as called in Rego (`array.concat`). */
  name: string
  /** OPA's category (`arrays`, `strings`, ...), used by docs and capabilities. */
  category: string
  /** One sentence for `regent capabilities` and docs/builtins.md. */
  description: string
  /** Named argument types; arity is `args.length`. */
  args: readonly NamedType[]
  /** Named result type; absent for `print` and `internal.print`. */
  result?: NamedType
  /** Type of extra arguments (`print` takes any number). */
  variadic?: Type
  /** True when the result may change between identical calls; PE never evaluates these. */
  nondeterministic?: boolean
  /** Deprecated built-ins are rejected in strict mode. */
  deprecated?: boolean
  /** The infix operator for this function (`plus` is `+`). */
  infix?: string
}

/** A synchronous function. */
export interface FunctionSpec extends BuiltinSpecBase {
  relation?: false
  async?: false
  /** `caller` is the calling evaluation, for built-ins that run a query of their own. */
  impl: (ctx: BuiltinContext, args: BuiltinArgs, location?: Location, caller?: BuiltinCaller) => BuiltinResult
}

/** A relation: yields any number of results (`walk`). */
export interface RelationSpec extends BuiltinSpecBase {
  relation: true
  async?: false
  impl: (ctx: BuiltinContext, args: BuiltinArgs, location?: Location) => Iterable<Value>
}

/** A function that does I/O (`http.send`): the evaluator awaits its promise. */
export interface AsyncSpec extends BuiltinSpecBase {
  relation?: false
  async: true
  impl: (ctx: BuiltinContext, args: BuiltinArgs, location?: Location) => Promise<BuiltinResult>
}

/** Fields every declared built-in has. */
interface BuiltinBase extends Readonly<BuiltinSpecBase> {
  /** Number of positional arguments. */
  readonly arity: number
  /** The full function type (args, result, variadic), for the type checker. */
  readonly decl: FunctionType
}

/** A declared synchronous function. */
export interface FunctionBuiltin extends BuiltinBase {
  readonly kind: 'function'
  readonly impl: FunctionSpec['impl']
}

/** A declared relation. */
export interface RelationBuiltin extends BuiltinBase {
  readonly kind: 'relation'
  readonly impl: RelationSpec['impl']
}

/** A declared asynchronous function. */
export interface AsyncBuiltin extends BuiltinBase {
  readonly kind: 'async'
  readonly impl: AsyncSpec['impl']
}

/** Any declared built-in. */
export type Builtin = FunctionBuiltin | RelationBuiltin | AsyncBuiltin

/**
 * Declares a built-in. The name is written once; arity comes from `args.length`.
 *
 * @example
 * export const upper = defineBuiltin({
 *   name: 'upper', category: 'strings', description: 'Returns the input string in upper case.',
 *   args: [t.named('x', t.string)], result: t.named('y', t.string),
 *   impl: (_ctx, [x]) => stringOperand(x, 1).toUpperCase(),
 * })
 */
export function defineBuiltin(spec: RelationSpec): RelationBuiltin
export function defineBuiltin(spec: AsyncSpec): AsyncBuiltin
export function defineBuiltin(spec: FunctionSpec): FunctionBuiltin
export function defineBuiltin(spec: FunctionSpec | RelationSpec | AsyncSpec): Builtin {
  const decl = t.fn(spec.args, spec.result, spec.variadic)
  const base = { ...spec, arity: spec.args.length, decl }
  if (spec.relation) return { ...base, kind: 'relation', impl: spec.impl } as RelationBuiltin
  if (spec.async) return { ...base, kind: 'async', impl: spec.impl } as AsyncBuiltin
  return { ...base, kind: 'function', impl: spec.impl } as FunctionBuiltin
}
