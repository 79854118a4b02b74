/**
 * RegoFiltering: `policy_filter` is a Rego module (its source text) and `policy_query` a query
 * evaluated against it by regent's own engine with the fetched content as `input`; the value of
 * the query's first expression in its first result is what the datasource stores. Both are
 * checked at PUT (parse, compile) so a run fails only on what the data does.
 */
import {
  compile,
  DEFAULT_EVALUATION_BUDGET,
  type EvaluationBudget,
  evaluate,
  type Policy,
  parseModuleWithErrors,
  RegoErrors,
  EvalError as RegoEvalError,
  toJSONText,
} from '../../core/rego/index.js'
import { parseJsonDocument, stringifyJsonDocument } from '../json-document.js'
import { checkModuleSet, describeRegoError } from '../policy-validation.js'
import { itemCount } from './decode.js'
import { RunError } from './types.js'

/** The file name errors of a filter module carry. */
export const FILTER_FILE = 'policy_filter.rego'

export interface FilterFields {
  policy_filter?: unknown
  policy_query?: unknown
}

function compileFilter(source: string): Policy {
  const { module, errors } = parseModuleWithErrors(source, { file: FILTER_FILE })
  if (!module || errors.length > 0) throw new RegoErrors(errors)
  return compile(new Map([[FILTER_FILE, module]]))
}

/**
 * Problems of a configuration's filter, each naming its field (`policy_filter: file:row:col: …`);
 * empty when there is no filter or it compiles with its query.
 */
export function filterProblems(config: FilterFields): string[] {
  if (typeof config.policy_filter !== 'string' || typeof config.policy_query !== 'string') return []
  const moduleErrors = checkModuleSet({ [FILTER_FILE]: config.policy_filter })
  if (moduleErrors.length > 0)
    return moduleErrors.map((e) => `policy_filter: ${describeRegoError(e, FILTER_FILE)}`)
  try {
    compileFilter(config.policy_filter).query(config.policy_query)
    return []
  } catch (err) {
    if (err instanceof RegoErrors) return err.errors.map((e) => `policy_query: ${describeRegoError(e)}`)
    return [`policy_query: ${err instanceof Error ? err.message : String(err)}`]
  }
}

/** A filter's result as it is stored: its JSON text (stringifyJsonDocument's) and item count. */
export interface FilterOutput {
  text: string
  items: number
}

/**
 * The limits a filter evaluates under: the run's timeout always; on the main thread also the
 * servers' default work limit, so a filter that never ends cannot hold the service's event loop
 * for the whole run (on a worker it only holds its own thread, and big content needs more work).
 */
export function filterBudget(timeoutMs: number, onMainThread: boolean): EvaluationBudget {
  return {
    timeoutMs,
    instructionLimit: onMainThread ? DEFAULT_EVALUATION_BUDGET.instructionLimit : 0,
  }
}

/**
 * `content` run through the filter `policy_filter` / `policy_query` (filter-off-thread.ts decides
 * on which thread).
 * @throws RunError naming file:line of an evaluation error, or saying the query was undefined.
 */
export async function runFilter(
  policyFilter: string,
  policyQuery: string,
  content: unknown,
  budget: EvaluationBudget,
): Promise<FilterOutput> {
  try {
    const policy = compileFilter(policyFilter)
    const run = await evaluate(policyQuery, content, { policy, budget })
    const first = run.results[0]?.expressions[0]
    if (first === undefined) throw new RunError('filter error: policy_query is undefined for this content')
    // Through JSON text so numbers keep every digit, as stored documents do; written back as the
    // store writes documents, so an unchanged result keeps its ETag.
    const result = parseJsonDocument(toJSONText(first.value))
    return { text: stringifyJsonDocument(result), items: itemCount(result) }
  } catch (err) {
    if (err instanceof RunError) throw err
    if (err instanceof RegoEvalError) {
      const loc = err.location
      const where = loc ? `${loc.file || FILTER_FILE}:${loc.row}:${loc.col}: ` : ''
      throw new RunError(`filter error: ${where}${err.code}: ${err.message}`)
    }
    if (err instanceof RegoErrors)
      throw new RunError(`filter error: ${err.errors.map((e) => describeRegoError(e)).join('; ')}`)
    throw new RunError(`filter error: ${err instanceof Error ? err.message : String(err)}`)
  }
}
