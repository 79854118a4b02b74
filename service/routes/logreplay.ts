/**
 * `POST /v1/logreplay`: replays a system's logged decisions against candidate modules and answers
 * which decisions would change (the flip report to read before shipping a policy change). Body:
 * `{system, commit?, modules?, delete_modules?, start_time?, end_time?, decision_id?, limit?}`; each decision is
 * evaluated at its logged path with its logged input and `nd_builtin_cache`, over the system's
 * content (stored, or from git: the followed commit or `commit`, ../evaluation/system-content.ts)
 * with `modules` added or replacing (by name) and `delete_modules` removed.
 * Decisions of ad-hoc queries (no path) are counted as skipped. docs/decision-replay.md.
 */
import { Hono } from 'hono'
import { z } from 'zod'
import { readStructuredBody } from '../../core/http/index.js'
import { jsonText } from '../evaluation/data-request.js'
import type { ReplayDecision, ReplayItem } from '../evaluation/replay-task.js'
import { loadSystemContent } from '../evaluation/system-content.js'
import { isJsonObject, parseJsonDocument } from '../json-document.js'
import type { ServiceDeps, ServiceEnv } from '../types.js'
import { checkId, validateBody } from '../validation.js'

/** Most decisions one replay may take. */
export const MAX_REPLAY_DECISIONS = 1000

const time = z.string().refine((s) => !Number.isNaN(Date.parse(s)), { error: 'expected an RFC 3339 time' })

const replayRequestSchema = z.strictObject({
  system: z.string().min(1),
  /** A commit SHA, branch or tag of the system's origin: the candidate's modules and data files. */
  commit: z.string().min(1).max(1024).optional(),
  modules: z.record(z.string().min(1), z.string()).default({}),
  delete_modules: z.array(z.string().min(1)).default([]),
  start_time: time.optional(),
  end_time: time.optional(),
  /** Replays this one decision only (the console's "replay against…" on a decision). */
  decision_id: z.string().min(1).max(1024).optional(),
  limit: z.int().min(1).max(MAX_REPLAY_DECISIONS).default(100),
})

/** A logged event as a decision to replay, or undefined for one without a path. */
function replayDecision(decisionId: string, raw: string): ReplayDecision | undefined {
  const event = parseJsonDocument(raw)
  if (!isJsonObject(event) || typeof event.path !== 'string' || event.path.trim() === '') return undefined
  const path = event.path.split('/').filter((s) => s !== '')
  return {
    decisionId,
    path,
    ...(event.input !== undefined ? { inputText: jsonText(event.input) } : {}),
    ...(isJsonObject(event.nd_builtin_cache) ? { ndBuiltinCacheText: jsonText(event.nd_builtin_cache) } : {}),
    ...(event.result !== undefined ? { resultText: jsonText(event.result) } : {}),
  }
}

/** Routes of `/v1/logreplay`. */
export function logReplayRoutes(deps: ServiceDeps): Hono<ServiceEnv> {
  const app = new Hono<ServiceEnv>()
  app.post('/v1/logreplay', async (c) => {
    const startedAt = Date.now()
    const request = validateBody(replayRequestSchema, await readStructuredBody(c), 'replay request')
    const systemId = checkId(request.system, 'system')
    const base = await loadSystemContent(deps, systemId, request.commit)
    const modules = { ...base.modules, ...request.modules }
    for (const name of request.delete_modules) delete modules[name]
    const stored = await deps.store.decisions.search({
      systemIds: [systemId],
      ...(request.start_time ? { startUs: Date.parse(request.start_time) * 1000 } : {}),
      ...(request.end_time ? { endUs: Date.parse(request.end_time) * 1000 } : {}),
      ...(request.decision_id
        ? { terms: [{ kind: 'decision_id' as const, value: request.decision_id }] }
        : {}),
      order: 'DESC',
      limit: request.limit,
    })
    const decisions: ReplayDecision[] = []
    for (const d of stored) {
      const decision = replayDecision(d.decisionId, d.raw)
      if (decision) decisions.push(decision)
    }
    const { items } = await deps.evaluator.replay(
      {
        modules,
        dataText: jsonText(base.data),
        decisions,
        instructionLimit: deps.evaluator.config.instruction_limit,
      },
      startedAt,
    )
    return c.json({
      request_id: c.var.requestId,
      result: {
        ...summary(systemId, stored.length, decisions.length, items),
        ...(base.commit ? { commit: base.commit } : {}),
      },
    })
  })
  return app
}

function summary(system: string, found: number, replayable: number, items: ReplayItem[]) {
  // A Map: logged paths are the agents' text (`__proto__` is a path like any other).
  const byPath = new Map<string, { replayed: number; changed: number }>()
  for (const item of items) {
    const counts = byPath.get(item.path) ?? { replayed: 0, changed: 0 }
    byPath.set(item.path, counts)
    counts.replayed++
    if (item.changed) counts.changed++
  }
  return {
    system,
    replayed: items.length,
    changed: items.filter((i) => i.changed).length,
    errors: items.filter((i) => i.error !== undefined).length,
    skipped: found - replayable,
    // The deadline passed before every decision was replayed.
    incomplete: items.length < replayable,
    by_path: Object.fromEntries(byPath),
    changes: items.filter((i) => i.changed),
  }
}
