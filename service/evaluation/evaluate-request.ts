/**
 * One data evaluation, as the evaluation worker runs it: parse and compile the modules with the
 * data (the built-ins with EOPA's store built-ins, the mocked ones replaced and non-deterministic
 * answers seeded from and recorded in `nd_builtin_cache`), run the document read or the `rego`
 * query under the budget, and apply `jsonpath`. Every failure a user can fix is answered as a
 * 400 naming the field, module, line and column; nothing here touches the store.
 */
import { createBuiltinContext } from '../../core/rego/builtins/context.js'
import type { Builtin } from '../../core/rego/builtins/define.js'
import { NdBuiltinCache } from '../../core/rego/builtins/nd-builtin-cache.js'
import { BUILTINS_WITH_STORES } from '../../core/rego/builtins/registry.js'
import { isEvalError } from '../../core/rego/eval/errors.js'
import {
  compile,
  type Module,
  type Policy,
  parseModuleWithErrors,
  type QueryResult,
  RegoError,
  RegoErrors,
} from '../../core/rego/index.js'
import { fromJS, ObjectValue, parseJSON, toJS, toJSONText, type Value } from '../../core/rego/values/index.js'
import { describeRegoError } from '../policy-validation.js'
import { BuiltinMocks, type MocksReport } from './builtin-mocks.js'
import { CompiledPolicies } from './compiled-policies.js'
import { extractJsonPath, JsonPathError } from './json-path.js'
import type { ValidatedMocks } from './mock-request.js'

/** What the worker is sent: everything the evaluation needs, JSON values as text. */
export interface EvaluationTask {
  /** File name → Rego source (stored modules under their policy path, supplied ones as named). */
  modules: Record<string, string>
  dataText: string
  inputText?: string
  /** A document (`data` and the path's segments) or a `rego` query. */
  query: { kind: 'document'; path: string[] } | { kind: 'rego'; text: string }
  jsonpath?: string
  mocks: ValidatedMocks
  /** Present when the request gave `nd_builtin_cache`: seeds it, and the answer returns it. */
  ndBuiltinCacheText?: string
  strict: boolean
  sandbox: boolean
  replay: boolean
  /** Hosts and folders unmocked calls may reach (empty for a sandbox). */
  allowNet: string[]
  allowFiles: string[]
  instructionLimit: number
  /**
   * Names the content (modules, data, strict) when it is stored content as it is: the worker
   * keeps the compiled policy under it (compiled-policies.ts). Absent: compiled for this task only.
   */
  compiledKey?: string
}

/** The worker's answer. */
export type EvaluationAnswer =
  | {
      ok: true
      /** False for a document that is undefined. */
      defined: boolean
      resultText: string
      mocks?: MocksReport
      ndBuiltinCacheText?: string
    }
  | { ok: false; status: 400; code: string; message: string; errors?: unknown[] }

/** This worker's compiled policies of stored content (the worker runs one task at a time). */
const COMPILED = new CompiledPolicies()

/** The config key behind each budget error, named in its message. */
const BUDGET_KEYS: Partial<Record<string, string>> = {
  eval_cancel_error: 'timeout_ms',
  eval_instruction_limit_error: 'instruction_limit',
}

/** A failure the user can fix. */
export function refusal(code: string, message: string, errors?: unknown[]): EvaluationAnswer & { ok: false } {
  return { ok: false, status: 400, code, message, ...(errors && errors.length > 0 ? { errors } : {}) }
}

function regoRefusal(field: string, err: RegoErrors | RegoError): EvaluationAnswer & { ok: false } {
  const list = err instanceof RegoErrors ? err.errors : [err]
  const first = list[0]
  const message = first ? describeRegoError(first) : err.message
  const more = list.length > 1 ? ` (and ${list.length - 1} more)` : ''
  return refusal(
    'invalid_parameter',
    `${field}: ${message}${more}`,
    list.map((e) => e.toJSON()),
  )
}

/** `data["a"]["b"]`: the path's segments quoted, so any segment text is a valid reference. */
export function documentQuery(path: readonly string[]): string {
  return `data${path.map((s) => `[${JSON.stringify(s)}]`).join('')}`
}

/** OPA's result set (`opa eval` JSON): expressions with value, text and location, and bindings. */
function resultSet(results: readonly QueryResult[]): Value {
  return results.map((r) => {
    const expressions = r.expressions.map((x) => {
      const out = new ObjectValue().set('value', x.value).set('text', x.text)
      if (x.location) out.set('location', fromJS(x.location))
      return out
    })
    const out = new ObjectValue().set('expressions', expressions)
    if (r.bindings.size > 0) out.set('bindings', ObjectValue.from(r.bindings))
    return out
  })
}

function runtimeValue(task: EvaluationTask): Value {
  if (task.mocks.runtime) return fromJS(task.mocks.runtime)
  // NOTE(service): never the service's own environment; `replay` marks a re-evaluation (spec).
  return fromJS({ env: task.replay ? { REPLAY: 'true' } : {}, config: {} })
}

/**
 * Parses and compiles `modules` with the data: the policy, or the 400 naming the module, line and
 * column of the first problem.
 */
export function compileModules(
  modules: Record<string, string>,
  dataText: string,
  builtins: readonly Builtin[],
  strict: boolean,
): { policy: Policy } | { refusal: EvaluationAnswer & { ok: false } } {
  const parsed = new Map<string, Module>()
  const parseErrors: RegoError[] = []
  for (const [file, source] of Object.entries(modules)) {
    const result = parseModuleWithErrors(source, { file })
    parseErrors.push(...result.errors)
    if (result.module) parsed.set(file, result.module)
  }
  if (parseErrors.length > 0) return { refusal: regoRefusal('rego_modules', new RegoErrors(parseErrors)) }
  try {
    return { policy: compile(parsed, parseJSON(dataText), { builtins, strict }) }
  } catch (err) {
    if (err instanceof RegoErrors || err instanceof RegoError)
      return { refusal: regoRefusal('rego_modules', err) }
    throw err
  }
}

/** Runs one task until `deadline` (ms since the epoch); never throws for the user's mistakes. */
export async function evaluateTask(task: EvaluationTask, deadline: number): Promise<EvaluationAnswer> {
  let nd: NdBuiltinCache | undefined
  if (task.ndBuiltinCacheText !== undefined) {
    try {
      nd = NdBuiltinCache.fromJson(parseJSON(task.ndBuiltinCacheText))
    } catch (err) {
      return refusal(
        'invalid_parameter',
        `nd_builtin_cache: ${err instanceof Error ? err.message : String(err)}`,
      )
    }
  }
  const mocks = new BuiltinMocks(task.mocks.builtins, task.sandbox)
  const mocked = mocks.wrap(BUILTINS_WITH_STORES)
  const builtins = nd ? nd.wrap(mocked) : mocked

  const key = task.compiledKey
  let policy = key === undefined ? undefined : COMPILED.get(key)
  if (!policy) {
    const compiled = compileModules(task.modules, task.dataText, builtins, task.strict)
    if ('refusal' in compiled) return compiled.refusal
    policy = compiled.policy
    if (key !== undefined) COMPILED.set(key, policy)
  }
  const text = task.query.kind === 'rego' ? task.query.text : documentQuery(task.query.path)
  let prepared: ReturnType<typeof policy.query>
  try {
    prepared = policy.query(text)
    if (key !== undefined) COMPILED.noteQuery(key, text)
  } catch (err) {
    if (err instanceof RegoErrors || err instanceof RegoError) return regoRefusal('rego', err)
    throw err
  }

  const remaining = Math.max(1, deadline - Date.now())
  const ctx = createBuiltinContext({
    allowNet: task.allowNet,
    allowFiles: task.allowFiles,
    runtime: runtimeValue(task),
    print: () => {},
    regoMetadata: policy.regoMetadata,
    parseModule: policy.parseModule,
    signal: AbortSignal.timeout(remaining),
  })
  let results: QueryResult[]
  try {
    const run = await prepared.eval({
      ctx,
      budget: { timeoutMs: remaining, instructionLimit: task.instructionLimit },
      ...(task.inputText !== undefined ? { input: parseJSON(task.inputText) } : {}),
    })
    results = run.results
  } catch (err) {
    if (!isEvalError(err)) throw err
    const loc = err.location
    const at = loc ? `${loc.file ? `${loc.file}:` : ''}${loc.row}:${loc.col}: ` : ''
    const limit = BUDGET_KEYS[err.code]
    const where = `${at}${err.code}: ${err.message}${limit ? ` (the limit is service.evaluation.${limit})` : ''}`
    return refusal(err.code, `evaluation failed: ${where}`, [err.toJSON()])
  }

  let result: Value | undefined
  if (task.query.kind === 'rego') result = resultSet(results)
  else result = results[0]?.expressions[0]?.value
  const defined = result !== undefined
  let resultText = defined ? toJSONText(result as Value) : 'null'
  if (defined && task.jsonpath !== undefined) {
    try {
      resultText = JSON.stringify(extractJsonPath(task.jsonpath, toJS(result as Value)))
    } catch (err) {
      if (err instanceof JsonPathError) return refusal('invalid_parameter', `jsonpath: ${err.message}`)
      throw err
    }
  }
  const report = mocks.report()
  return {
    ok: true,
    defined,
    resultText,
    ...(Object.keys(report).length > 0 ? { mocks: report } : {}),
    ...(nd ? { ndBuiltinCacheText: toJSONText(nd.toValue()) } : {}),
  }
}
