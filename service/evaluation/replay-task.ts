/**
 * Decision replay on the evaluation worker: the candidate modules are compiled once with the
 * system's data, then each logged decision's path is evaluated again with its logged input and
 * its `nd_builtin_cache` (so `http.send`, `time.now_ns` … answer as they did; nothing else goes
 * out), and the new result is compared with the logged one.
 */

import { createBuiltinContext } from '../../core/rego/builtins/context.js'
import { NdBuiltinCache } from '../../core/rego/builtins/nd-builtin-cache.js'
import { BUILTINS_WITH_STORES } from '../../core/rego/builtins/registry.js'
import { isEvalError } from '../../core/rego/eval/errors.js'
import { parseJSON, toJS } from '../../core/rego/values/index.js'
import { compileModules, documentQuery, type EvaluationAnswer } from './evaluate-request.js'
import { canonical } from './mock-table.js'

/** One logged decision to replay. */
export interface ReplayDecision {
  decisionId: string
  /** The logged path's segments (`authz/allow` → ['authz', 'allow']). */
  path: string[]
  inputText?: string
  ndBuiltinCacheText?: string
  /** The logged result as JSON text; absent when the decision was undefined. */
  resultText?: string
}

export interface ReplayTask {
  modules: Record<string, string>
  dataText: string
  decisions: ReplayDecision[]
  instructionLimit: number
}

/** What one decision does under the candidate modules. */
export interface ReplayItem {
  decision_id: string
  path: string
  changed: boolean
  before?: unknown
  after?: unknown
  /** The evaluation failed (the decision counts as changed). */
  error?: string
}

export type ReplayAnswer = { ok: true; items: ReplayItem[] } | Extract<EvaluationAnswer, { ok: false }>

/** Replays every decision until `deadline` (ms since the epoch). */
export async function replayTask(task: ReplayTask, deadline: number): Promise<ReplayAnswer> {
  const nd = new NdBuiltinCache()
  const compiled = compileModules(task.modules, task.dataText, nd.wrap(BUILTINS_WITH_STORES), false)
  if ('refusal' in compiled) return compiled.refusal
  const { policy } = compiled
  const items: ReplayItem[] = []
  for (const decision of task.decisions) {
    nd.load(decision.ndBuiltinCacheText === undefined ? {} : parseJSON(decision.ndBuiltinCacheText))
    const before =
      decision.resultText === undefined ? undefined : (JSON.parse(decision.resultText) as unknown)
    const item: ReplayItem = {
      decision_id: decision.decisionId,
      path: decision.path.join('/'),
      changed: false,
      before,
    }
    const remaining = Math.max(1, deadline - Date.now())
    try {
      const { results } = await policy.query(documentQuery(decision.path)).eval({
        // A replay reaches nothing outside: what the decision saw is in its nd_builtin_cache.
        ctx: createBuiltinContext({
          allowNet: [],
          allowFiles: [],
          print: () => {},
          signal: AbortSignal.timeout(remaining),
        }),
        budget: { timeoutMs: remaining, instructionLimit: task.instructionLimit },
        ...(decision.inputText !== undefined ? { input: parseJSON(decision.inputText) } : {}),
      })
      const value = results[0]?.expressions[0]?.value
      const after = value === undefined ? undefined : toJS(value)
      item.after = after
      item.changed =
        canonical(before) !== canonical(after) || (before === undefined) !== (after === undefined)
    } catch (err) {
      if (!isEvalError(err)) throw err
      // Past the deadline nothing more can be replayed: report what was.
      if (err.code === 'eval_cancel_error') break
      item.error = `${err.code}: ${err.message}`
      item.changed = true
    }
    items.push(item)
  }
  return { ok: true, items }
}
