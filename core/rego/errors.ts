/**
 * Static errors of the Rego engine (parse, compile, type, safety, recursion, format), with OPA's
 * stable codes and JSON shape, so OPA's `want_error_code` cases and API clients see the same thing.
 * Evaluation errors (`eval_*`) live in `eval/errors.ts`.
 */
import type { Location } from './syntax/ast.js'
import { type Excerpt, excerptLines } from './syntax/source.js'

/** The static error codes, as OPA names them. */
export type RegoErrorCode =
  | 'rego_parse_error'
  | 'rego_compile_error'
  | 'rego_type_error'
  | 'rego_unsafe_var_error'
  | 'rego_recursion_error'
  | 'rego_format_error'

/** The location fields OPA puts in error JSON (no text). */
export interface ErrorLocation {
  file: string
  row: number
  col: number
}

/** OPA's JSON for one error. */
export interface RegoErrorJson {
  code: RegoErrorCode
  message: string
  location?: ErrorLocation
  details?: unknown
}

/** One static error. `details` is an excerpt for parse errors, or code-specific data. */
export class RegoError extends Error {
  readonly code: RegoErrorCode
  readonly location: ErrorLocation | undefined
  readonly details: Excerpt | Record<string, unknown> | undefined
  /** Text lines printed under the message in place of the details (OPA's `Details.Lines()`). */
  readonly lines: readonly string[] | undefined

  constructor(
    code: RegoErrorCode,
    message: string,
    location?: Pick<Location, 'file' | 'row' | 'col'>,
    details?: Excerpt | Record<string, unknown>,
    lines?: readonly string[],
  ) {
    super(message)
    this.name = 'RegoError'
    this.code = code
    this.location = location ? { file: location.file, row: location.row, col: location.col } : undefined
    this.details = details
    this.lines = lines
  }

  /**
   * `file:row: code: message` (`row:col: ...` when there is no file, as OPA's ast.Error prints
   * it), then the source line and a caret when an excerpt is attached, or a type error's details
   * (`have: ...`, `want: ...`) a line each. The column stays in the JSON form.
   */
  override toString(): string {
    const loc = this.location
    const prefix = loc ? `${loc.file ? `${loc.file}:${loc.row}` : `${loc.row}:${loc.col}`}: ` : ''
    let out = `${prefix}${this.code}: ${this.message}`
    const d = this.details
    if (this.lines) {
      for (const line of this.lines) out += `\n\t${line}`
    } else if (d && typeof d.line === 'string' && typeof d.idx === 'number') {
      for (const line of excerptLines({ line: d.line, idx: d.idx })) out += `\n\t${line}`
    } else if (d && this.code === 'rego_type_error') {
      // As OPA prints a type error's details: `have: (number)`, `want: (string)`.
      for (const [key, value] of Object.entries(d))
        if (typeof value === 'string') out += `\n\t${key}: ${value}`
    }
    return out
  }

  /** OPA's JSON shape: `{code, message, location?, details?}`. */
  toJSON(): RegoErrorJson {
    const json: RegoErrorJson = { code: this.code, message: this.message }
    if (this.location) json.location = this.location
    if (this.details) json.details = this.details
    return json
  }
}

/** A list of static errors, thrown as one (as OPA's `ast.Errors`). */
export class RegoErrors extends Error {
  readonly errors: RegoError[]

  constructor(errors: RegoError[]) {
    super(summary(errors))
    this.name = 'RegoErrors'
    this.errors = errors
  }

  /** Sorts by file, row, column, then message, which is the order OPA reports errors in. */
  sorted(): RegoErrors {
    const key = (e: RegoError) => e.location ?? { file: '', row: 0, col: 0 }
    const errors = [...this.errors].sort((a, b) => {
      const la = key(a)
      const lb = key(b)
      return (
        la.file.localeCompare(lb.file) ||
        la.row - lb.row ||
        la.col - lb.col ||
        a.message.localeCompare(b.message)
      )
    })
    return new RegoErrors(errors)
  }

  /** Pretty text: `N errors occurred:` then each error with its excerpt. */
  override toString(): string {
    if (this.errors.length === 1) return `1 error occurred: ${this.errors[0]?.toString()}`
    return `${this.errors.length} errors occurred:\n${this.errors.map((e) => e.toString()).join('\n')}`
  }

  /** The JSON array of errors, as OPA prints them. */
  toJSON(): RegoErrorJson[] {
    return this.errors.map((e) => e.toJSON())
  }
}

function summary(errors: RegoError[]): string {
  if (errors.length === 0) return 'no error(s)'
  if (errors.length === 1) return `1 error occurred: ${errors[0]?.message}`
  return `${errors.length} errors occurred`
}

type Loc = Pick<Location, 'file' | 'row' | 'col'> | undefined

/** A syntax error; `excerpt` is the offending line with the caret position. */
export function parseError(location: Loc, message: string, excerpt?: Excerpt): RegoError {
  return new RegoError('rego_parse_error', message, location, excerpt)
}

/** A compile-stage error (conflicts, undefined functions, bad refs, ...). */
export function compileError(location: Loc, message: string, details?: Record<string, unknown>): RegoError {
  return new RegoError('rego_compile_error', message, location, details)
}

/** A type-check error. */
export function typeError(
  location: Loc,
  message: string,
  details?: Record<string, unknown>,
  lines?: readonly string[],
): RegoError {
  return new RegoError('rego_type_error', message, location, details, lines)
}

/** A variable that is not safe (cannot be bound by the body). */
export function unsafeVarError(location: Loc, name: string): RegoError {
  return new RegoError('rego_unsafe_var_error', `var ${name} is unsafe`, location)
}

/** A rule or function that depends on itself. */
export function recursionError(location: Loc, message: string): RegoError {
  return new RegoError('rego_recursion_error', message, location)
}

/** The formatter could not print a module. */
export function formatError(location: Loc, message: string): RegoError {
  return new RegoError('rego_format_error', message, location)
}
