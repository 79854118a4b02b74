/**
 * Evaluation errors with OPA's codes and JSON shape (`eval_conflict_error`, `eval_type_error`,
 * `eval_builtin_error`, ...). Create them through the named constructors so the messages match
 * OPA's word for word; `HaltError` stops evaluation at once.
 */
import type { Location } from '../syntax/ast.js'
import { locationString } from '../syntax/source.js'

/** The `eval_*` codes. */
export type EvalErrorCode =
  | 'eval_conflict_error'
  | 'eval_type_error'
  | 'eval_builtin_error'
  | 'eval_internal_error'
  | 'eval_cancel_error'
  | 'eval_instruction_limit_error'

/** OPA's JSON for an evaluation error. */
export interface EvalErrorJson {
  code: EvalErrorCode
  message: string
  location?: { file: string; row: number; col: number }
}

/** An error raised while evaluating a query. */
// biome-ignore lint/suspicious/noShadowRestrictedNames: OPA's name for it (STYLE.md); import the constructors below instead.
export class EvalError extends Error {
  readonly code: EvalErrorCode
  readonly location: Location | undefined

  constructor(code: EvalErrorCode, message: string, location?: Location, cause?: unknown) {
    super(message, cause === undefined ? undefined : { cause })
    this.name = 'EvalError'
    this.code = code
    this.location = location
  }

  /** `file:row: code: message`, as OPA prints evaluation errors. */
  override toString(): string {
    const loc = this.location
    const where = loc ? locationString(loc) : ''
    return `${where ? `${where}: ` : ''}${this.code}: ${this.message}`
  }

  /** OPA's JSON shape. */
  toJSON(): EvalErrorJson {
    const json: EvalErrorJson = { code: this.code, message: this.message }
    if (this.location)
      json.location = { file: this.location.file, row: this.location.row, col: this.location.col }
    return json
  }
}

/**
 * Thrown to suspend a query until something outside it is known (calls.ts `AsyncCallNeeded`). It
 * passes through built-ins untouched, so a built-in that runs a query of its own (`rego.compile`)
 * suspends its caller the same way.
 */
export class QuerySuspended extends Error {}

/** Raised by `halt`-style conditions that must abort the whole query (never swallowed). */
export class HaltError extends Error {
  readonly error: EvalError
  constructor(error: EvalError) {
    super(error.message)
    this.name = 'HaltError'
    this.error = error
  }
}

/** Two bodies of a complete rule produced different values. */
export function completeConflictError(location?: Location): EvalError {
  return new EvalError('eval_conflict_error', 'complete rules must not produce multiple outputs', location)
}

/** Two definitions of a function produced different values for the same inputs. */
export function functionConflictError(location?: Location): EvalError {
  return new EvalError(
    'eval_conflict_error',
    'functions must not produce multiple outputs for same inputs',
    location,
  )
}

/** Two rules or comprehension iterations produced different values for one object key. */
export function objectKeyConflictError(location?: Location): EvalError {
  return new EvalError('eval_conflict_error', 'object keys must be unique', location)
}

/** A `with` target on `input` whose path holds a var (`with input[x] as 1`), as OPA reports it. */
export function badWithPathError(location?: Location): EvalError {
  return new EvalError('eval_conflict_error', 'bad document path', location)
}

/** A base document and a virtual document could not be merged. */
export function mergeConflictError(location?: Location): EvalError {
  return new EvalError('eval_conflict_error', 'base and virtual document keys must be disjoint', location)
}

/** Something the compiler should have prevented. */
export function internalError(message: string, location?: Location): EvalError {
  return new EvalError('eval_internal_error', message, location)
}

/**
 * The evaluator recurses once per expression of a body and once per rule a rule reads, on a
 * JavaScript stack of fixed size: some hundreds of expressions in one body, or a chain of about 250
 * rules each reading the next, exceed it (docs/evaluator.md). For such a RangeError, the error to
 * report instead; undefined for any other error.
 */
export function stackDepthError(err: unknown, location?: Location): EvalError | undefined {
  if (!(err instanceof RangeError) || !err.message.includes('call stack')) return undefined
  return internalError(
    'evaluation nested too deeply for the JavaScript stack (a rule body of hundreds of expressions, or a chain of hundreds of rules each reading the next)',
    location,
  )
}

/** The query ran past its deadline or was cancelled. */
export function cancelError(message = 'caller cancelled query execution'): EvalError {
  return new EvalError('eval_cancel_error', message)
}

/** Any evaluation error with an explicit code (built-in errors carry their own). */
export function evalError(
  code: EvalErrorCode,
  message: string,
  location?: Location,
  cause?: unknown,
): EvalError {
  return new EvalError(code, message, location, cause)
}

/** True for evaluation errors. */
export function isEvalError(x: unknown): x is EvalError {
  return x instanceof EvalError
}

/** The query evaluated more expressions than allowed. */
export function instructionLimitError(): EvalError {
  return new EvalError('eval_instruction_limit_error', 'instructions limit exceeded')
}
