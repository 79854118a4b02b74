/**
 * The errors the compile endpoint answers with, in OPA's shapes: the response envelope
 * `{code, message, errors?}` and, inside `errors`, OPA's AST error `{code, message, location?, details?}`.
 */
import { RegoError, RegoErrors } from '../core/rego/errors.js'
import { isEvalError } from '../core/rego/eval/errors.js'
import type { Location } from '../core/rego/syntax/ast.js'

/** OPA's JSON for one AST-level error (`pe_fragment_error`, `invalid_unknown`, `rego_*`, …). */
export interface AstErrorJson {
  code: string
  message: string
  location?: { file: string; row: number; col: number }
  /** `{details: "…"}` for fragment errors; code-specific data for errors of the Rego engine. */
  details?: unknown
}

/** The envelope codes this endpoint uses (OPA's server codes). */
export type CompileErrorCode = 'invalid_parameter' | 'evaluation_error' | 'internal_error'

/** The message OPA puts on every `evaluation_error` envelope. */
export const EVALUATION_ERROR_MESSAGE = 'error(s) occurred while evaluating query'

/**
 * Thrown by a backend that answers from query templates only (the relay's main thread) when a
 * request needs the evaluator. Not a failure of the request: whoever called that backend sends the
 * request where the evaluator runs. `lasting` when every request to the same rule would need it
 * under the same policies (no template, a mask rule); not for one input's failed built-in.
 */
export class EvaluatorRequired extends Error {
  constructor(
    message: string,
    readonly lasting: boolean,
  ) {
    super(message)
    this.name = 'EvaluatorRequired'
  }
}

/**
 * A failed compile request: an HTTP status and OPA's envelope. Thrown anywhere in `compile/` and written
 * by the route; never a crash.
 */
export class CompileFailure extends Error {
  constructor(
    readonly status: 400 | 500,
    readonly code: CompileErrorCode,
    message: string,
    readonly errors?: AstErrorJson[],
  ) {
    super(message)
    this.name = 'CompileFailure'
  }

  /** The response body: `{code, message, errors?}`. */
  toJSON(): { code: string; message: string; errors?: AstErrorJson[] } {
    return this.errors && this.errors.length > 0
      ? { code: this.code, message: this.message, errors: this.errors }
      : { code: this.code, message: this.message }
  }
}

/** 400 `invalid_parameter`: the request itself is wrong. */
export function invalidParameter(message: string, errors?: AstErrorJson[]): CompileFailure {
  return new CompileFailure(400, 'invalid_parameter', message, errors)
}

/** 400 `evaluation_error` with AST errors (fragment errors, bad annotations). */
export function evaluationError(errors: AstErrorJson[]): CompileFailure {
  return new CompileFailure(400, 'evaluation_error', EVALUATION_ERROR_MESSAGE, errors)
}

/** 500 `internal_error`: evaluation or rendering failed; the message says where (`partial eval: …`). */
export function internalFailure(message: string): CompileFailure {
  return new CompileFailure(500, 'internal_error', message)
}

/** An AST error; `location` keeps only file, row and column, as OPA prints them. */
export function astError(
  code: string,
  location: Pick<Location, 'file' | 'row' | 'col'> | undefined,
  message: string,
  details?: string,
): AstErrorJson {
  const err: AstErrorJson = { code, message }
  if (location) err.location = { file: location.file, row: location.row, col: location.col }
  if (details !== undefined) err.details = { details }
  return err
}

/** The code of every fragment (post-partial-evaluation) error. */
export const FRAGMENT_ERROR_CODE = 'pe_fragment_error'

/** A `pe_fragment_error` at `location`. */
export function fragmentError(
  location: Pick<Location, 'file' | 'row' | 'col'> | undefined,
  message: string,
  details?: string,
): AstErrorJson {
  return astError(FRAGMENT_ERROR_CODE, location, message, details)
}

/**
 * An error thrown by the Rego engine (the backend), as the answer to give: static errors (`rego_*`)
 * 400 `invalid_parameter` "error(s) occurred while compiling module(s)" with the errors; anything else
 * 500 `internal_error` "<stage>: <message>" (`partial eval: …`, `evaluate masks: …`), with the
 * `eval_*` error in `errors` when it is one.
 */
export function backendFailure(err: unknown, stage: string): CompileFailure {
  // Not a failure: passed on to whoever asked a templates-only backend.
  if (err instanceof EvaluatorRequired) throw err
  if (err instanceof CompileFailure) return err
  if (isEvalError(err) && BUDGET_CODES.has(err.code)) return budgetFailure(err.code, err.message)
  if (err instanceof RegoErrors) return invalidParameter(COMPILE_MODULES_MESSAGE, err.toJSON())
  if (err instanceof RegoError) return invalidParameter(COMPILE_MODULES_MESSAGE, [err.toJSON()])
  // An evaluation error (out of budget, cancelled, a failed http.send) keeps its `eval_*` code,
  // as OPA's server reports it, so a caller can tell a runaway query from a bug.
  if (isEvalError(err))
    return new CompileFailure(500, 'internal_error', `${stage}: ${err.message}`, [err.toJSON()])
  return internalFailure(`${stage}: ${err instanceof Error ? err.message : String(err)}`)
}

const COMPILE_MODULES_MESSAGE = 'error(s) occurred while compiling module(s)'

/** The evaluation errors of a query stopped for its budget (deadline, cancellation, instruction limit). */
const BUDGET_CODES: ReadonlySet<string> = new Set(['eval_cancel_error', 'eval_instruction_limit_error'])

/**
 * 500 `internal_error` "error(s) occurred while evaluating query" with the evaluation error inside,
 * as OPA's server answers a cancelled or over-budget query (`eval_cancel_error`,
 * `eval_instruction_limit_error`). The relay also answers so when it stops a worker past the
 * request's deadline.
 */
export function budgetFailure(code: string, message: string): CompileFailure {
  return new CompileFailure(500, 'internal_error', 'error(s) occurred while evaluating query', [
    { code, message },
  ])
}
