/**
 * Table-driven checks of built-in error messages through the real evaluation path: a query is
 * prepared against an empty policy and evaluated with strict built-in errors (the error is raised
 * with OPA's code and `name: message`), then without (the call is undefined and the error recorded).
 */
import { expect } from 'vitest'
import { createBuiltinContext } from '../../../../core/rego/builtins/context.js'
import { compile, parseModule, EvalError as RegoEvalError } from '../../../../core/rego/index.js'
import { parseJSON, toJSONText } from '../../../../core/rego/values/index.js'

/** One case: the query, OPA's code and exact message, and the input document as JSON text. */
export interface ErrorCase {
  query: string
  code: 'eval_type_error' | 'eval_builtin_error'
  message: string
  input?: string
}

const policy = compile({ 'p.rego': parseModule('package p\n', { file: 'p.rego' }) }, {})

/** The error a strict evaluation of `query` raises (fails the test when there is none). */
export function strictError(query: string, input?: string): RegoEvalError {
  const prepared = policy.prepare(query)
  const options = { strictBuiltinErrors: true, ...(input === undefined ? {} : { input: parseJSON(input) }) }
  try {
    prepared.evalSync(options)
  } catch (err) {
    if (err instanceof RegoEvalError) return err
    throw err
  }
  throw new Error(`${query}: no error`)
}

/** Asserts every case, strict and non-strict. */
export function expectErrors(cases: readonly ErrorCase[]): void {
  for (const c of cases) {
    const err = strictError(c.query, c.input)
    expect({ code: err.code, message: err.message }, c.query).toEqual({ code: c.code, message: c.message })
    const run = policy.prepare(c.query).evalSync(c.input === undefined ? {} : { input: parseJSON(c.input) })
    expect(run.results, `${c.query} (not strict)`).toEqual([])
    expect(run.builtinErrors[0]?.message, `${c.query} (not strict)`).toBe(c.message)
  }
}

/** A case whose input is `input` (JSON text), so the type checker does not see the argument. */
export function withInput(query: string, input: string, code: ErrorCase['code'], message: string): ErrorCase {
  return { query, input, code, message }
}

/** The value `x` is bound to by a strict evaluation of `query`, as canonical JSON text. */
export function boundX(query: string, input?: string): string | undefined {
  const options = { strictBuiltinErrors: true, ...(input === undefined ? {} : { input: parseJSON(input) }) }
  const run = policy.prepare(query).evalSync(options)
  const x = run.results[0]?.bindings.get('x')
  return x === undefined ? undefined : toJSONText(x)
}

/** Async evaluation options (http.send runs only on the async path); `allowNet` as a server sets it. */
function asyncOptions(input?: string, allowNet?: readonly string[], strict = true) {
  return {
    strictBuiltinErrors: strict,
    ...(input === undefined ? {} : { input: parseJSON(input) }),
    ...(allowNet === undefined ? {} : { ctx: createBuiltinContext({ allowNet, print: () => {} }) }),
  }
}

/**
 * {@link expectErrors} through the async evaluation path (http.send): strict, the error stops the
 * query; not strict, the call is undefined and the error recorded, as for any other built-in.
 */
export async function expectErrorsAsync(
  cases: readonly ErrorCase[],
  allowNet?: readonly string[],
): Promise<void> {
  for (const c of cases) {
    let raised: unknown
    try {
      await policy.prepare(c.query).eval(asyncOptions(c.input, allowNet))
    } catch (err) {
      raised = err
    }
    if (!(raised instanceof RegoEvalError)) throw new Error(`${c.query}: no evaluation error (${raised})`)
    expect({ code: raised.code, message: raised.message }, c.query).toEqual({
      code: c.code,
      message: c.message,
    })
    const run = await policy.prepare(c.query).eval(asyncOptions(c.input, allowNet, false))
    expect(run.results, `${c.query} (not strict)`).toEqual([])
    expect(
      run.builtinErrors.map((e) => ({ code: e.code, message: e.message })),
      `${c.query} (not strict)`,
    ).toEqual([{ code: c.code, message: c.message }])
  }
}

/** The value `x` is bound to by an async evaluation of `query`, as canonical JSON text. */
export async function boundXAsync(query: string, allowNet?: readonly string[]): Promise<string | undefined> {
  const run = await policy.prepare(query).eval(asyncOptions(undefined, allowNet))
  const x = run.results[0]?.bindings.get('x')
  return x === undefined ? undefined : toJSONText(x)
}
