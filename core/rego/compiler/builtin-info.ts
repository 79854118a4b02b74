/**
 * What the compiler needs to know about a built-in function: its arity (for safety and call
 * checks), whether it returns a value (void functions such as `print` cannot be used as values),
 * whether it is a relation (may produce several outputs), deprecation, and its declared argument
 * types for the type checker. The built-ins registry is adapted to this view; the language's own
 * operators (`eq`, `assign`, `internal.member_2`, `internal.print`, ...) are listed here because the
 * compiler introduces or rewrites them.
 */
import type { FunctionType } from '../types/index.js'

/** A built-in's compile-time signature. */
export interface BuiltinInfo {
  name: string
  /** Number of declared arguments (an extra operand is the output). */
  arity: number
  /** False for void functions (`print`). */
  hasResult: boolean
  /** Relations may produce several outputs for one input (`walk`). */
  relation?: boolean
  deprecated?: boolean
  nondeterministic?: boolean
  /** The declared function type (argument types for the type checker). */
  decl?: FunctionType
}

/** Looks a built-in up by its dotted name. */
export type BuiltinLookup = (name: string) => BuiltinInfo | undefined

/** The operators the parser and compiler produce, known regardless of the registry. */
export const LANGUAGE_BUILTINS: readonly BuiltinInfo[] = [
  { name: 'eq', arity: 2, hasResult: true },
  { name: 'assign', arity: 2, hasResult: true },
  { name: 'internal.member_2', arity: 2, hasResult: true },
  { name: 'internal.member_3', arity: 3, hasResult: true },
  { name: 'internal.print', arity: 1, hasResult: false },
  // Injected into parameterized tests when compiling for `regent test` (stages/inject-test-case-calls).
  { name: 'internal.test_case', arity: 1, hasResult: false },
  { name: 'print', arity: -1, hasResult: false },
  { name: 'internal.template_string', arity: 1, hasResult: true },
]

/** Combines the language operators with a registry lookup (the registry wins on overlap). */
export function withLanguageBuiltins(lookup: BuiltinLookup): BuiltinLookup {
  const own = new Map(LANGUAGE_BUILTINS.map((b) => [b.name, b]))
  return (name) => lookup(name) ?? own.get(name)
}

/** The declaration fields of a registry built-in that the compiler reads. */
export interface DeclaredBuiltin {
  readonly name: string
  readonly arity: number
  readonly kind: 'function' | 'relation' | 'async'
  readonly result?: unknown
  readonly variadic?: unknown
  readonly deprecated?: boolean
  readonly nondeterministic?: boolean
  readonly decl?: FunctionType
}

/** Adapts a list of declared built-ins (the registry) to a lookup. */
export function lookupFromDeclarations(builtins: readonly DeclaredBuiltin[]): BuiltinLookup {
  const map = new Map<string, BuiltinInfo>()
  for (const b of builtins) {
    const info: BuiltinInfo = {
      name: b.name,
      arity: b.variadic !== undefined && b.arity === 0 ? -1 : b.arity,
      hasResult: b.result !== undefined,
    }
    if (b.decl) info.decl = b.decl
    if (b.kind === 'relation') info.relation = true
    if (b.deprecated) info.deprecated = true
    if (b.nondeterministic) info.nondeterministic = true
    map.set(b.name, info)
  }
  return (name) => map.get(name)
}
