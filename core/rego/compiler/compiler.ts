/**
 * The Rego compiler: turns a set of parsed modules into the rewritten, checked form the evaluator
 * runs, through the ordered STAGES table below (the same stages, in the same order, as OPA's
 * `ast.Compiler`, minus those regent does not need). Each stage lives in `stages/<verb-phrase>.ts`
 * and reports errors through `Compiler.err`, which stops after `maxErrors` as OPA does.
 */
import { compileError, type RegoError, RegoErrors } from '../errors.js'
import type { Body, Import, Location, Module, Package, Rule, Term } from '../syntax/ast.js'
import { copyModule } from '../syntax/copy.js'
import type { Type } from '../types/index.js'
import type { SchemaSet } from '../types/schema-set.js'
import type { Value } from '../values/index.js'
import { type BuiltinInfo, type BuiltinLookup, withLanguageBuiltins } from './builtin-info.js'
import type { ComprehensionIndices } from './comprehension-index.js'
import { LocalVarGenerator } from './local-vars.js'
import { lowerLogicalExprs } from './lower-logical-exprs.js'
import type { RuleIndex } from './rule-index.js'
import { buildRuleTree, type RuleEntry, RuleTreeNode } from './rule-tree.js'
import { buildComprehensionIndices } from './stages/build-comprehension-indices.js'
import { buildRuleIndices } from './stages/build-rule-indices.js'
import { checkAnnotationRedeclarations } from './stages/check-annotation-redeclarations.js'
import { checkDeprecatedBuiltins } from './stages/check-deprecated-builtins.js'
import { checkImports } from './stages/check-imports.js'
import { checkKeywordOverrides } from './stages/check-keyword-overrides.js'
import { checkPathConflicts } from './stages/check-path-conflicts.js'
import { checkRecursion, setGraph } from './stages/check-recursion.js'
import { checkRuleConflicts } from './stages/check-rule-conflicts.js'
import { checkSafetyRuleBodies, checkSafetyRuleHeads } from './stages/check-safety.js'
import { checkTypes } from './stages/check-types.js'
import { checkUndefinedFuncs } from './stages/check-undefined-funcs.js'
import { checkVoidCalls } from './stages/check-void-calls.js'
import { injectTestCaseCalls } from './stages/inject-test-case-calls.js'
import { resolveAllRefs } from './stages/resolve-refs.js'
import { rewriteComprehensionTerms } from './stages/rewrite-comprehension-terms.js'
import { rewriteDuplicateTestNames } from './stages/rewrite-duplicate-test-names.js'
import { rewriteDynamicTerms } from './stages/rewrite-dynamic-terms.js'
import { rewriteEquals } from './stages/rewrite-equals.js'
import { rewriteExprTerms } from './stages/rewrite-expr-terms.js'
import { rewriteLocalVars } from './stages/rewrite-local-vars.js'
import { rewritePrintCalls } from './stages/rewrite-print-calls.js'
import { rewriteRefsInHead } from './stages/rewrite-refs-in-head.js'
import { rewriteRuleHeadRefs } from './stages/rewrite-rule-head-refs.js'
import { rewriteTemplateStrings } from './stages/rewrite-template-strings.js'
import { rewriteTestRulesForTracing } from './stages/rewrite-test-rules-for-tracing.js'
import { rewriteWithModifiers } from './stages/rewrite-with-modifiers.js'
import { refName } from './terms.js'

/** Options of one compilation. */
export interface CompilerOptions {
  /** Built-in functions available to policies (the registry, adapted). */
  builtins?: BuiltinLookup
  /** `-S/--strict`: unused vars and imports, deprecated built-ins, duplicate imports are errors. */
  strict?: boolean
  /** Keep `print()` calls (otherwise they are erased, as OPA does when printing is off). */
  enablePrintStatements?: boolean
  /** Stop after this many errors (default 10, 0 for no limit). */
  maxErrors?: number
  /** The type of `input` for the type checker (from a JSON Schema, `-s`); `any` when not given. */
  inputType?: Type
  /**
   * The JSON Schemas `# METADATA schemas:` annotations name (`-s DIR`). Given (even empty), the type
   * checker applies those annotations, as OPA's does `WithUseTypeCheckAnnotations`; not given, they
   * are ignored.
   */
  schemas?: SchemaSet
  /**
   * Compile for `regent test` (OPA's tester stages): test rules that share a name are renamed
   * `name#01`, ... so each runs alone, and each parameterized test reports its cases.
   */
  tests?: boolean
  /**
   * `regent test --var-values` (OPA's `WithRewriteTestRules`): refs and comprehensions compared in
   * test rules are bound to variables first, so a failed comparison can show their values.
   */
  traceTestRules?: boolean
  /**
   * The base documents (OPA's `WithPathConflictsCheck`): a rule defined where they hold a value is
   * a compile error. Not given, rules are not checked against data.
   */
  baseData?: Value
}

/** One stage of the pipeline. */
export interface CompilerStage {
  name: string
  metric: string
  run: (c: Compiler) => void
  /** Run only when compiling for `regent test` (OPA's tester adds these stages to its compiler). */
  testsOnly?: boolean
}

/** The pipeline, in order. */
export const STAGES: readonly CompilerStage[] = [
  { name: 'ResolveRefs', metric: 'compile_stage_resolve_refs', run: resolveAllRefs },
  { name: 'InitLocalVarGen', metric: 'compile_stage_init_local_var_gen', run: (c) => c.initLocalVarGen() },
  { name: 'RewriteRuleHeadRefs', metric: 'compile_stage_rewrite_rule_head_refs', run: rewriteRuleHeadRefs },
  {
    name: 'RewriteDuplicateTestNames',
    metric: 'rewrite_duplicate_test_names',
    run: rewriteDuplicateTestNames,
    testsOnly: true,
  },
  {
    name: 'CheckKeywordOverrides',
    metric: 'compile_stage_check_keyword_overrides',
    run: checkKeywordOverrides,
  },
  { name: 'CheckDuplicateImports', metric: 'compile_stage_check_imports', run: checkImports },
  { name: 'SetRuleTree', metric: 'compile_stage_set_rule_tree', run: (c) => c.setRuleTree() },
  { name: 'RewriteLocalVars', metric: 'compile_stage_rewrite_local_vars', run: rewriteLocalVars },
  { name: 'InjectTestCaseFunc', metric: 'inject_test_case_func', run: injectTestCaseCalls, testsOnly: true },
  {
    name: 'RewriteTemplateStrings',
    metric: 'compile_stage_rewrite_template_strings',
    run: rewriteTemplateStrings,
  },
  { name: 'CheckVoidCalls', metric: 'compile_stage_check_void_calls', run: checkVoidCalls },
  { name: 'RewritePrintCalls', metric: 'compile_stage_rewrite_print_calls', run: rewritePrintCalls },
  { name: 'RewriteExprTerms', metric: 'compile_stage_rewrite_expr_terms', run: rewriteExprTerms },
  {
    name: 'SetAnnotationSet',
    metric: 'compile_stage_set_annotationset',
    run: checkAnnotationRedeclarations,
  },
  { name: 'SetGraph', metric: 'compile_stage_set_graph', run: setGraph },
  {
    name: 'RewriteComprehensionTerms',
    metric: 'compile_stage_rewrite_comprehension_terms',
    run: rewriteComprehensionTerms,
  },
  { name: 'RewriteRefsInHead', metric: 'compile_stage_rewrite_refs_in_head', run: rewriteRefsInHead },
  { name: 'RewriteWithValues', metric: 'compile_stage_rewrite_with_values', run: rewriteWithModifiers },
  { name: 'CheckRuleConflicts', metric: 'compile_stage_check_rule_conflicts', run: checkRuleConflicts },
  { name: 'CheckPathConflicts', metric: 'compile_stage_check_path_conflicts', run: checkPathConflicts },
  { name: 'CheckUndefinedFuncs', metric: 'compile_stage_check_undefined_funcs', run: checkUndefinedFuncs },
  {
    name: 'CheckSafetyRuleHeads',
    metric: 'compile_stage_check_safety_rule_heads',
    run: checkSafetyRuleHeads,
  },
  {
    name: 'CheckSafetyRuleBodies',
    metric: 'compile_stage_check_safety_rule_bodies',
    run: checkSafetyRuleBodies,
  },
  { name: 'RewriteEquals', metric: 'compile_stage_rewrite_equals', run: rewriteEquals },
  { name: 'RewriteDynamicTerms', metric: 'compile_stage_rewrite_dynamic_terms', run: rewriteDynamicTerms },
  {
    name: 'RewriteTestRulesForTracing',
    metric: 'compile_stage_rewrite_test_rules_for_tracing',
    run: rewriteTestRulesForTracing,
    testsOnly: true,
  },
  { name: 'CheckRecursion', metric: 'compile_stage_check_recursion', run: checkRecursion },
  { name: 'CheckTypes', metric: 'compile_stage_check_types', run: checkTypes },
  {
    name: 'CheckDeprecatedBuiltins',
    metric: 'compile_state_check_deprecated_builtins',
    run: checkDeprecatedBuiltins,
  },
  { name: 'BuildRuleIndices', metric: 'compile_stage_rebuild_indices', run: buildRuleIndices },
  {
    name: 'BuildComprehensionIndices',
    metric: 'compile_stage_rebuild_comprehension_indices',
    run: buildComprehensionIndices,
  },
]

/** Compiler state shared by the stages. Create with `new Compiler(options)`, then `compile(modules)`. */
export class Compiler {
  readonly options: Required<
    Pick<CompilerOptions, 'strict' | 'enablePrintStatements' | 'maxErrors' | 'tests' | 'traceTestRules'>
  >
  readonly builtins: BuiltinLookup
  /** The type of `input` the type checker assumes. */
  readonly inputType: Type | undefined
  /** The schemas annotations name, when the type checker applies them. */
  readonly schemas: SchemaSet | undefined
  /** The base documents, for the path conflict check. */
  readonly baseData: Value | undefined
  /** Modules by name (rewritten copies of the inputs). */
  modules = new Map<string, Module>()
  /** Module names, sorted: the order stages visit modules in. */
  sorted: string[] = []
  /** Imports of each module, kept after the RemoveImports step for strict checks and queries. */
  imports = new Map<string, Import[]>()
  ruleTree: RuleTreeNode = new RuleTreeNode({ type: 'var', value: 'data' })
  /** Generated var → the name the user wrote, for error messages and query results. */
  rewrittenVars = new Map<string, string>()
  /** Rule dependency graph (rule → rules it refers to). */
  graph = new Map<Rule, Set<Rule>>()
  /** Rule indices by the path of the rule set they index. */
  ruleIndices = new Map<RuleTreeNode, RuleIndex>()
  /** Comprehensions the evaluator computes once and looks up by their index keys. */
  comprehensionIndices: ComprehensionIndices = new Map()
  errors: RegoError[] = []
  localVarGen: LocalVarGenerator = new LocalVarGenerator(new Set())
  /** Timings of each stage in nanoseconds, for `--metrics`. */
  readonly metrics = new Map<string, number>()
  #limitReached = false

  constructor(options: CompilerOptions = {}) {
    this.options = {
      strict: options.strict ?? false,
      enablePrintStatements: options.enablePrintStatements ?? false,
      maxErrors: options.maxErrors ?? 10,
      tests: options.tests ?? false,
      traceTestRules: options.traceTestRules ?? false,
    }
    this.builtins = withLanguageBuiltins(options.builtins ?? (() => undefined))
    this.inputType = options.inputType
    this.schemas = options.schemas
    this.baseData = options.baseData
  }

  /** Compiles `modules` (name → module). Throws `RegoErrors` on failure. */
  compile(modules: Map<string, Module> | Record<string, Module>): this {
    const entries = modules instanceof Map ? [...modules] : Object.entries(modules)
    this.modules = new Map(entries.map(([name, m]) => [name, lowerLogicalExprs(copyModule(m))]))
    this.sorted = [...this.modules.keys()].sort()
    for (const stage of STAGES) {
      if (stage.testsOnly && !this.options.tests) continue
      const start = process.hrtime.bigint()
      stage.run(this)
      this.metrics.set(stage.metric, Number(process.hrtime.bigint() - start))
      if (this.errors.length > 0) throw sortedErrors(this.errors)
    }
    return this
  }

  /** Records errors; returns false once the error limit is reached (stages then stop). */
  err(...errs: RegoError[]): boolean {
    if (errs.length === 0) return true
    const max = this.options.maxErrors
    if (max <= 0) {
      this.errors.push(...errs)
      return true
    }
    if (this.#limitReached) return false
    const remaining = max - this.errors.length
    const take = errs.slice(0, Math.max(0, remaining))
    this.errors.push(...take)
    if (this.errors.length >= max) {
      this.errors.push(compileError(undefined, 'error limit reached'))
      this.#limitReached = true
      return false
    }
    return true
  }

  /** Modules in sorted order. */
  sortedModules(): Module[] {
    return this.sorted.map((n) => this.modules.get(n) as Module)
  }

  initLocalVarGen(): void {
    this.localVarGen = LocalVarGenerator.forModules(this.sortedModules())
  }

  setRuleTree(): void {
    this.ruleTree = buildRuleTree(this.sortedModules())
  }

  /** The built-in with this name, if any. */
  builtin(name: string): BuiltinInfo | undefined {
    return this.builtins(name)
  }

  /**
   * The number of arguments the function `ref` takes: a built-in's declared arity or a user
   * function's argument count; -1 when `ref` is not a function.
   */
  getArity(ref: Term[]): number {
    const name = refName({ type: 'ref', value: ref })
    if (name !== undefined) {
      const bi = this.builtins(name)
      if (bi) return bi.arity
    }
    const rules = this.getRulesExact(ref)
    const first = rules[0]
    if (!first) return -1
    return first.rule.head.args?.length ?? 0
  }

  /** Rules at exactly `ref` (a data ref). */
  getRulesExact(ref: Term[]): RuleEntry[] {
    if (ref[0]?.type !== 'var' || ref[0].value !== 'data') return []
    return this.ruleTree.lookup(ref.slice(1))?.rules ?? []
  }

  /** Rules `ref` may refer to: exact matches, rules on the way, and everything below (OPA's GetRulesDynamic). */
  getRulesDynamic(ref: Term[]): RuleEntry[] {
    if (ref[0]?.type !== 'var' || ref[0].value !== 'data') return []
    const out = new Set<RuleEntry>()
    const walk = (node: RuleTreeNode, i: number): void => {
      if (i >= ref.length) {
        node.depthFirst((d) => {
          for (const r of d.rules) out.add(r)
          return false
        })
        return
      }
      const part = ref[i] as Term
      if (isConstantKey(part)) {
        const child = node.child(part)
        if (!child) return
        for (const r of child.rules) out.add(r)
        walk(child, i + 1)
        return
      }
      for (const child of node.children.values()) {
        for (const r of child.rules) out.add(r)
        walk(child, i + 1)
      }
    }
    walk(this.ruleTree, 1)
    return [...out]
  }
}

function isConstantKey(t: Term): boolean {
  return t.type === 'string' || t.type === 'number' || t.type === 'boolean' || t.type === 'null'
}

/** Package and imports an ad-hoc query is evaluated in (`--package`, `--import`). */
export interface QueryContext {
  package?: Package
  imports?: Import[]
  /** Capture each expression's value for OPA's `expressions` results (as the rego API does). */
  captureValues?: boolean
  /**
   * Rewrite the query's `==` to `=` after the safety check, as OPA's `PrepareForPartial` does for
   * partial evaluation (a plain query keeps `==`, which can report `false`).
   */
  rewriteEquals?: boolean
}

/** One expression of a query as written, and the var capturing its value (OPA's `$term` vars). */
export interface QueryExprInfo {
  text: string
  location: Location | undefined
  capture: string | undefined
}

/** A body with the names of the variables the user wrote. */
export interface CompiledQuery {
  body: Body
  /** Generated var → user var (`__localq0__` → `x` for `x := 1`). */
  rewrittenVars: Map<string, string>
  /** The user's expressions, when values were captured (`captureValues`). */
  exprs: QueryExprInfo[]
}

/** Errors sorted as OPA reports them, with "error limit reached" kept last. */
export function sortedErrors(errors: RegoError[]): RegoErrors {
  const limit = errors.filter((e) => e.message === 'error limit reached' && !e.location)
  const rest = new RegoErrors(errors.filter((e) => !limit.includes(e))).sorted()
  return new RegoErrors([...rest.errors, ...limit])
}
