/**
 * The request body of `POST /v1/compile[/{path}]`: decoded from JSON (numbers kept exactly) or YAML,
 * checked against a zod schema, and turned into the refs the pipeline works with.
 */
import { isLosslessNumber, LosslessNumber, parse as parseLossless } from 'lossless-json'
import { z } from 'zod'
import { payloadTooLarge } from '../core/http/errors.js'
import type { RefTerm } from '../core/rego/syntax/ast.js'
import { readYaml, YamlError } from '../core/yaml.js'
import { invalidParameter } from './errors.js'
import { parseRefText } from './refs.js'
import type { JsonValue } from './types.js'

const stringList = z.array(z.string()).nullish()

/** `options` of the body. Unknown keys are ignored, as OPA ignores them. */
export const compileOptionsSchema = z.looseObject({
  disableInlining: stringList,
  maskRule: z.string().nullish(),
  nondeterministicBuiltins: z.boolean().nullish(),
  /** The spec's spelling of `nondeterministicBuiltins`. */
  nondeterminsticBuiltins: z.boolean().nullish(),
  targetDialects: stringList,
  targetSQLTableMappings: z.record(z.string(), z.unknown()).nullish(),
})

/** The whole body. `query` is read only on `POST /v1/compile`; unknown keys are ignored. */
export const compileBodySchema = z.looseObject({
  input: z.unknown().optional(),
  query: z.string().nullish(),
  unknowns: stringList,
  options: compileOptionsSchema.nullish(),
})

/** The body after validation, with defaults applied. */
export interface CompileBody {
  input: JsonValue | undefined
  query: string | undefined
  /** Unknown ref texts, or undefined when not given (absent, null or empty). */
  unknowns: string[] | undefined
  disableInlining: string[]
  maskRule: string | undefined
  nondeterministicBuiltins: boolean
  targetDialects: string[]
  targetSQLTableMappings: Record<string, unknown> | undefined
}

const YAML_TYPES = new Set(['application/x-yaml', 'application/yaml', 'text/yaml', 'text/x-yaml'])

/**
 * Decodes and validates a body. An empty body is `{}` (GET requests from curl have none).
 * @throws CompileFailure 400 `error(s) occurred while decoding request: …` naming what is wrong.
 */
export function decodeCompileBody(text: string, contentType: string): CompileBody {
  const raw = text.trim() === '' ? {} : parseText(text, contentType)
  const parsed = compileBodySchema.safeParse(raw)
  if (!parsed.success) {
    const issue = parsed.error.issues[0]
    const where = issue && issue.path.length > 0 ? `${issue.path.join('.')}: ` : ''
    throw invalidParameter(
      `error(s) occurred while decoding request: ${where}${issue?.message ?? 'invalid body'}`,
    )
  }
  const body = parsed.data
  const options = body.options ?? {}
  return {
    // As Go decodes it, `"input": null` is no input at all.
    input: body.input === null ? undefined : (body.input as JsonValue | undefined),
    query: body.query ?? undefined,
    unknowns: body.unknowns && body.unknowns.length > 0 ? body.unknowns : undefined,
    disableInlining: options.disableInlining ?? [],
    maskRule: options.maskRule ? options.maskRule : undefined,
    nondeterministicBuiltins: options.nondeterministicBuiltins ?? options.nondeterminsticBuiltins ?? false,
    targetDialects: options.targetDialects ?? [],
    targetSQLTableMappings: options.targetSQLTableMappings ?? undefined,
  }
}

function parseText(text: string, contentType: string): unknown {
  const type = contentType.split(';')[0]!.trim().toLowerCase()
  if (YAML_TYPES.has(type)) {
    const decodeError = (reason: string) =>
      invalidParameter(`error(s) occurred while decoding request: ${reason}`)
    let value: unknown
    try {
      // Integers as bigint: exactNumbers keeps every digit, as for JSON bodies.
      value = readYaml(text, { intAsBigInt: true })
    } catch (err) {
      if (!(err instanceof YamlError)) throw err
      if (err.kind === 'too_many_nodes') throw payloadTooLarge(`YAML body${err.where}: ${err.reason}`)
      throw decodeError(err.message)
    }
    try {
      return exactNumbers(value)
    } catch (err) {
      throw decodeError((err as Error).message)
    }
  }
  try {
    return parseLossless(text)
  } catch (err) {
    throw invalidParameter(`error(s) occurred while decoding request: ${(err as Error).message}`)
  }
}

// YAML numbers arrive as JS numbers; give them the same exact-number form JSON bodies have.
function exactNumbers(value: unknown): unknown {
  if (typeof value === 'number') {
    if (!Number.isFinite(value)) throw new Error(`number ${value} is not valid JSON`)
    return new LosslessNumber(String(value))
  }
  if (typeof value === 'bigint') return new LosslessNumber(value.toString())
  if (Array.isArray(value)) return value.map(exactNumbers)
  if (value && typeof value === 'object' && !isLosslessNumber(value) && !(value instanceof Date)) {
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, exactNumbers(v)]))
  }
  if (value instanceof Date) return value.toISOString()
  return value
}

/**
 * The request's unknowns as refs.
 * @throws CompileFailure 400 `error(s) occurred while parsing unknowns: …`.
 */
export function parseUnknowns(texts: readonly string[]): RefTerm[] {
  return texts.map((text) => {
    try {
      return parseRefText(text)
    } catch (err) {
      throw invalidParameter(`error(s) occurred while parsing unknowns: ${(err as Error).message}`)
    }
  })
}
