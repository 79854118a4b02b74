/**
 * The public API of regent's Rego engine. This file only re-exports; each part lives in its own
 * folder (syntax/, format/, and later compiler/ and eval/).
 */

export { type DependencyRef, type QueryDependencies, queryDependencies } from './compiler/deps.js'
export { RegoError, type RegoErrorCode, type RegoErrorJson, RegoErrors } from './errors.js'
export { type CompileOptions, checkModules, compile, type EvaluateOptions, evaluate } from './eval/api.js'
export {
  DEFAULT_EVALUATION_BUDGET,
  type EvaluationBudget,
  resolveBudget,
  UNLIMITED_EVALUATION_BUDGET,
} from './eval/budget.js'
export { EvalError, type EvalErrorCode, type EvalErrorJson } from './eval/errors.js'
export {
  type PartialOptions,
  type PartialResult,
  partialEvaluate,
  partialEvaluateSync,
} from './eval/partial.js'
export { Policy } from './eval/policy.js'
export type { ExpressionValue, PreparedQuery, QueryOptions, QueryResult, QueryRun } from './eval/query.js'
export { type FormatOptions, formatModule, formatSource } from './format/formatter.js'
export { PlanEntrypointError, PlanError } from './plan/errors.js'
export type { Policy as IrPolicy } from './plan/ir.js'
export { type PlanEntrypoints, planPolicy } from './plan/planner.js'
export type {
  Annotations,
  Body,
  Comment,
  Expr,
  Head,
  Import,
  Location,
  Module,
  Package,
  RegoVersion,
  Rule,
  Term,
} from './syntax/ast.js'
export { type OpaJsonOptions, stringifyOpaJson, toOpaJson } from './syntax/json.js'
export { type ModuleParseResult, parseModule, parseModuleWithErrors } from './syntax/module-parser.js'
export type { ParseOptions } from './syntax/parser.js'
export { parseBody, parseQuery, parseTermText as parseTerm } from './syntax/query.js'
export { fromJS, toJS, toJSONText } from './values/index.js'
