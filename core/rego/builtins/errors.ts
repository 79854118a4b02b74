/**
 * Errors a built-in raises. Implementations throw {@link OperandError} (a wrong argument: OPA's
 * `builtins.ErrOperand`) or {@link BuiltinError} (the call failed); the wrapper in registry.ts turns
 * either into a {@link BuiltinCallError} carrying OPA's code, the built-in's name and the call site.
 */
import type { Location } from '../syntax/ast.js'
import { locationString } from '../syntax/source.js'

/** A wrong argument; the message starts with `operand N`. Maps to `eval_type_error`. */
export class OperandError extends Error {
  override readonly name = 'OperandError'
  /** 1-based argument position. */
  readonly position: number

  constructor(position: number, message: string) {
    super(`operand ${position} ${message}`)
    this.position = position
  }
}

/** The codes a built-in call can fail with. */
export type BuiltinErrorCode = 'eval_type_error' | 'eval_builtin_error'

/**
 * A failed built-in call. `code` defaults to `eval_builtin_error`; `eval_type_error` is for the
 * rare OPA error that is a type error without an operand position.
 */
export class BuiltinError extends Error {
  override readonly name = 'BuiltinError'
  readonly code: BuiltinErrorCode

  constructor(message: string, code: BuiltinErrorCode = 'eval_builtin_error') {
    super(message)
    this.code = code
  }
}

/**
 * A call refused before it reached anything: its host is not in `allow_net`, its file not in
 * `allowFiles`, or this build has no client for the store. Callers that stand in for outside
 * systems (the data API's mocks) tell these apart from failures of the outside system itself.
 */
export class CallRefusedError extends BuiltinError {}

/** OPA's JSON for an evaluation error. */
export interface EvalErrorJSON {
  code: BuiltinErrorCode
  message: string
  location?: { file: string; row: number; col: number }
}

/**
 * A built-in call that failed, as the evaluator sees it: `message` is `name: reason`, as OPA
 * prints it (`array.concat: operand 1 must be array but got object`).
 */
export class BuiltinCallError extends Error {
  override readonly name = 'BuiltinCallError'
  readonly code: BuiltinErrorCode
  readonly builtin: string
  readonly location: Location | undefined

  constructor(
    code: BuiltinErrorCode,
    builtin: string,
    message: string,
    location?: Location,
    cause?: unknown,
  ) {
    super(message, cause === undefined ? undefined : { cause })
    this.code = code
    this.builtin = builtin
    this.location = location
  }

  /** `file:row: code: message`, as OPA prints evaluation errors. */
  override toString(): string {
    const loc = this.location
    const where = loc ? locationString(loc) : ''
    return `${where ? `${where}: ` : ''}${this.code}: ${this.message}`
  }

  /** OPA's error JSON. */
  toJSON(): EvalErrorJSON {
    const json: EvalErrorJSON = { code: this.code, message: this.message }
    if (this.location)
      json.location = { file: this.location.file, row: this.location.row, col: this.location.col }
    return json
  }
}
