/**
 * A built-in a capabilities file declares but regent does not implement (a custom function of
 * another tool, such as `ec.oci.blob`): the compiler knows its name and type, so policies calling
 * it compile and tests can replace it with `with ... as`; calling it for real fails as OPA does for a
 * declared built-in without an implementation (topdown's unsupportedBuiltinErr:
 * `eval_internal_error: unsupported built-in`).
 */
import { internalError } from '../eval/errors.js'
import { typeFromJSON } from '../types/json.js'
import type { NamedType, Type } from '../types/types.js'
import { t } from '../types/types.js'
import type { Builtin, FunctionBuiltin } from './define.js'

/**
 * The built-in `name` with the type of its capabilities `decl` (OPA's type JSON of a function).
 * @throws TypeError when `decl` is not a function type.
 */
export function declaredOnlyBuiltin(name: string, decl: unknown): Builtin {
  const type = typeFromJSON(decl)
  if (type.kind !== 'function') throw new TypeError('decl must be a function type')
  const builtin: FunctionBuiltin = {
    name,
    category: 'declared',
    description: 'declared by a capabilities file; regent has no implementation',
    args: type.args.map((a, i) => named(a, `arg${i + 1}`)),
    ...(type.result ? { result: named(type.result, 'result') } : {}),
    ...(type.variadic ? { variadic: type.variadic } : {}),
    arity: type.args.length,
    // The type as declared (unnamed arguments print as OPA prints them in type errors).
    decl: type,
    kind: 'function',
    impl: (_ctx, _args, location) => {
      throw internalError('unsupported built-in', location)
    },
  }
  return builtin
}

function named(type: Type, name: string): NamedType {
  return type.kind === 'named' ? type : t.named(name, type)
}
