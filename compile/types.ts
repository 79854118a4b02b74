/**
 * Types shared by the compile endpoint's files: JSON values with exact numbers, the targets a request
 * can ask for, and the seam to the Rego engine (partial evaluation, evaluation, policy modules).
 */
import type { LosslessNumber } from 'lossless-json'
import type { Body, Expr, Module, RefTerm } from '../core/rego/syntax/ast.js'

/**
 * A JSON value whose numbers keep their exact text (`LosslessNumber`), as the request body and the
 * policy's constants carry them. A plain JS `number` is also accepted: the SQL renderers print it
 * unquoted, whereas a `LosslessNumber` (a JSON/Rego number) is printed as a quoted literal, as the
 * reference implementation does.
 */
export type JsonValue =
  | null
  | boolean
  | string
  | number
  | LosslessNumber
  | JsonValue[]
  | { [key: string]: JsonValue }

/** A JSON object (string keys). */
export type JsonObject = { [key: string]: JsonValue }

/** The SQL dialects regent renders. `sqlite-internal` is only used by the `rego.compile` test builtin. */
export type SqlDialect = 'postgresql' | 'mysql' | 'sqlserver' | 'sqlite' | 'sqlite-internal'

/** The UCAST flavors the Accept header names (multitarget may name others; they get the minimal constraints). */
export type UcastFlavor = 'all' | 'minimal' | 'prisma' | 'linq'

/**
 * One translation target: `sql` with its dialect, or `ucast` with its variant. `variant` is the text the
 * request used (it selects the table mappings and is printed in error messages).
 */
export type Target =
  | { kind: 'sql'; dialect: SqlDialect; variant: string }
  | { kind: 'ucast'; variant: string }

/** What the partial evaluator is asked. */
export interface PartialEvaluationRequest {
  /** The Rego query text: the filter rule's ref (`data.filters.include`) or the body's `query`. */
  query: string
  /** The input document; `undefined` when the request had none. */
  input: JsonValue | undefined
  /** Refs treated as unknown (`input.fruits`); each is a ref term whose head is the var `input` or `data`. */
  unknowns: RefTerm[]
  /** Rule refs (as written in the request) that must not be inlined. */
  disableInlining: string[]
  /** When false, non-deterministic built-ins are saved instead of evaluated (only the AST target). */
  nondeterministicBuiltins: boolean
}

/**
 * The partial evaluator's answer, as OPA's `PartialQueries`: a disjunction of conjunctions, plus the
 * support modules (package `partial…`) holding rules it could not inline.
 */
export interface PartialEvaluationResult {
  queries: Body[]
  support: Module[]
  /** Expressions that failed during evaluation (for "did you mean" hints); optional. */
  failedExpressions?: Expr[]
  /** Timers (nanoseconds) to merge into `?metrics` output, named as OPA names them (`timer_rego_…_ns`). */
  metrics?: Record<string, number>
  /**
   * Set when the residual came from a template the evaluator has not confirmed yet (a backend that
   * answers from templates only): the caller compares the answer with a trusted one and settles it.
   */
  unconfirmed?: Unconfirmed
}

/** A residual to compare with a trusted answer: `confirm` when they agree, `reject` when not. */
export interface Unconfirmed {
  confirm(): void
  reject(): void
}

/** What the evaluator is asked for a mask rule: a plain evaluation, no unknowns. */
export interface EvaluationRequest {
  /** The mask rule's ref as Rego text (`data.filters.masks`). */
  query: string
  input: JsonValue | undefined
}

/**
 * The Rego engine as the compile endpoint sees it. The relay and `regent run -s` supply one over their
 * current policies. Static errors (`RegoError`/`RegoErrors` from `core/rego/errors.ts`) are answered
 * 400; any other thrown error is answered 500 with its message.
 */
export interface CompileBackend {
  /**
   * The policy modules, for annotation look-ups (`unknowns`, `mask_rule`). Must return the same array
   * instance until the policies change: a new instance purges the annotation caches.
   */
  modules(): readonly Module[]
  /** Partially evaluates a query (OPA's `rego.Partial`). */
  partialEvaluate(
    request: PartialEvaluationRequest,
  ): PartialEvaluationResult | Promise<PartialEvaluationResult>
  /** Evaluates a query and returns the first result's value as JSON, or `undefined` when undefined. */
  evaluate(request: EvaluationRequest): JsonValue | undefined | Promise<JsonValue | undefined>
  /** OPA's AST JSON of a partial result (`{queries, support}`), for the `application/json` target. */
  toAstJson(result: PartialEvaluationResult): JsonValue
}
