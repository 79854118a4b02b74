/**
 * A compiled policy: modules run through the compiler, the rule tree prepared for evaluation, the
 * base data document, and the built-ins it was compiled with. Queries are prepared against it
 * once and evaluated many times; `query()` caches prepared queries by text.
 */

import type { Builtin } from '../builtins/define.js'
import { DEFAULT_BUILTINS, indexBuiltins } from '../builtins/registry.js'
import { lookupFromDeclarations } from '../compiler/builtin-info.js'
import { Compiler, type QueryContext } from '../compiler/compiler.js'
import { compileQuery } from '../compiler/query.js'
import type { Body, Location, Module } from '../syntax/ast.js'
import { toOpaJson } from '../syntax/json.js'
import { parseModule } from '../syntax/module-parser.js'
import { parseQuery } from '../syntax/query.js'
import type { Type } from '../types/index.js'
import type { SchemaSet } from '../types/schema-set.js'
import { fromJS, isObject, ObjectValue, type Value } from '../values/index.js'
import type { EvalPolicy } from './evaluator.js'
import type { VNode } from './ir.js'
import { metadataLookup } from './metadata.js'
import { type PrepareContext, prepareBody, prepareRuleTree, Scope } from './prepare.js'
import { PreparedQuery } from './query.js'

/** Options for {@link compilePolicy}. */
export interface PolicyOptions {
  /** Built-ins available to the policy (default: all of regent's). */
  builtins?: readonly Builtin[]
  /** `-S/--strict` compile checks. */
  strict?: boolean
  /** Keep `print()` calls (default true, as `opa eval` and `opa test` do). */
  enablePrintStatements?: boolean
  /** Stop compiling after this many errors (default 10). */
  maxErrors?: number
  /** The type of `input` for the type checker (`typeFromJsonSchema` of a `-s` schema). */
  inputType?: Type
  /** The schemas `# METADATA schemas:` annotations name; given, the type checker applies them. */
  schemas?: SchemaSet
  /** Compile for `regent test` (see `CompilerOptions.tests`). */
  tests?: boolean
  /** With `tests`: bind compared refs of test rules to variables (see `CompilerOptions.traceTestRules`). */
  traceTestRules?: boolean
}

const LANGUAGE = new Set(['internal.print', 'print', 'trace', 'internal.test_case'])

/** A compiled module set with its data, ready for queries. */
export class Policy implements EvalPolicy {
  readonly compiler: Compiler
  readonly root: VNode
  data: Value
  readonly builtins: ReadonlyMap<string, Builtin>
  readonly #queries = new Map<string, PreparedQuery>()
  #metadata: ReturnType<typeof metadataLookup> | undefined

  /** Annotations for `rego.metadata.chain()` / `rego.metadata.rule()` (built on first use). */
  readonly regoMetadata = (location?: Location) => {
    this.#metadata ??= metadataLookup(this.compiler)
    return this.#metadata(location)
  }

  /** `rego.parse_module`: OPA's AST JSON of a module, as a value; throws the parse errors. */
  readonly parseModule = (filename: string, text: string): Value =>
    fromJS(toOpaJson(parseModule(text, { file: filename })))

  constructor(compiler: Compiler, root: VNode, data: Value, builtins: ReadonlyMap<string, Builtin>) {
    this.compiler = compiler
    this.root = root
    this.data = data
    this.builtins = builtins
  }

  /** Compiles and prepares a query (text or parsed body). Throws `RegoErrors` on compile errors. */
  prepare(query: string | Body, context: QueryContext = {}): PreparedQuery {
    const body = typeof query === 'string' ? parseQuery(query) : query
    const compiled = compileQuery(this.compiler, body, { captureValues: true, ...context })
    const scope = new Scope()
    const prepared = prepareBody(this.#prepareContext(), scope, compiled.body)
    return new PreparedQuery(this, compiled, prepared, scope.names, compiled.exprs)
  }

  /** A prepared query from the cache (text queries without context only). */
  query(text: string): PreparedQuery {
    let q = this.#queries.get(text)
    if (!q) {
      q = this.prepare(text)
      this.#queries.set(text, q)
    }
    return q
  }

  #prepareContext(): PrepareContext {
    return { root: this.root, builtins: this.builtins, isLanguageBuiltin: (n) => LANGUAGE.has(n) }
  }
}

/**
 * Compiles `modules` (file name → parsed module) with base `data` (JSON-like or a value).
 * Throws `RegoErrors` with OPA's codes when the modules do not compile.
 *
 * @example
 * const policy = compilePolicy({ 'x.rego': parseModule('package x\np := 1') })
 * policy.query('data.x.p = v').evalSync().results[0]?.bindings.get('v') // 1
 */
export function compilePolicy(
  modules: Record<string, Module> | Map<string, Module>,
  data: unknown = {},
  options: PolicyOptions = {},
): Policy {
  const builtinList = options.builtins ?? DEFAULT_BUILTINS
  const builtins = indexBuiltins(builtinList)
  const value = fromJS(data)
  const compiler = new Compiler({
    builtins: lookupFromDeclarations(builtinList),
    strict: options.strict ?? false,
    enablePrintStatements: options.enablePrintStatements ?? true,
    ...(options.maxErrors !== undefined ? { maxErrors: options.maxErrors } : {}),
    ...(options.inputType ? { inputType: options.inputType } : {}),
    ...(options.schemas ? { schemas: options.schemas } : {}),
    ...(options.tests ? { tests: true } : {}),
    ...(options.traceTestRules ? { traceTestRules: true } : {}),
    // As OPA's rego package does: a rule must not be defined where the data already has a value.
    baseData: value,
  }).compile(modules)
  const root = prepareRuleTree(compiler, { builtins, isLanguageBuiltin: (n) => LANGUAGE.has(n) })
  return new Policy(compiler, root, isObject(value) ? value : new ObjectValue(), builtins)
}
