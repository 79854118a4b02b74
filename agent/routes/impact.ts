/**
 * `POST /v0/impact?duration=30s&rate=0.1&equals=false`: live impact analysis, the reference
 * tool's endpoint behind `impact record`. The body is the candidate bundle (tar.gz or binary
 * bundle). The answer is 200 and a stream of JSON lines, one per difference between the served
 * decision and the candidate's (fields: node_id, req_id, decision_id, value_a, value_b, input,
 * path, eval_ns_a, eval_ns_b), closed when the duration has passed or the client goes away.
 */
import { randomUUID } from 'node:crypto'
import { rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { Hono } from 'hono'
import { stream } from 'hono/streaming'
import { type AppEnv, badRequest, readBody } from '../../core/http/index.js'
import { parseDuration } from '../../core/rego/builtins/go-time.js'
import { RegoErrors } from '../../core/rego/index.js'
import { loadInitialState } from '../load.js'
import { ServerState } from '../state.js'
import type { RunServerDeps } from '../types.js'

/** The longest recording accepted (a forgotten recorder must not sample forever). */
export const MAX_IMPACT_DURATION_MS = 24 * 60 * 60 * 1000

/** The impact route over the server's recorder (none without one). */
export function impactRoutes(deps: RunServerDeps): Hono<AppEnv> {
  const app = new Hono<AppEnv>()
  const recorder = deps.impact
  if (!recorder) return app
  app.post('/v0/impact', async (c) => {
    const durationMs = durationParam(c.req.query('duration') ?? '30s')
    const rate = rateParam(c.req.query('rate') ?? '0.1')
    const equals = (c.req.query('equals') ?? 'false') === 'true'
    const body = await readBody(c, deps.limits)
    if (body.length === 0) throw badRequest('impact: the request body must hold the candidate bundle')
    const candidate = await loadCandidate(body, deps)
    c.header('Content-Type', 'application/x-ndjson')
    // Rows must reach the recorder as they happen: no compression buffering them.
    c.header('Cache-Control', 'no-cache, no-transform')
    return stream(c, async (out) => {
      let pending = 0
      const recording = recorder.start({
        rate,
        equals,
        candidate,
        emit: (line) => {
          // A reader that stops reading loses rows rather than growing the server's memory.
          if (pending > 1000) return
          pending++
          void out.write(line).finally(() => pending--)
        },
      })
      out.onAbort(() => recording.stop())
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, durationMs)
        out.onAbort(() => {
          clearTimeout(timer)
          resolve()
        })
      })
      await recording.finish()
      c.var.log.info({ ...recording.stats(), duration_ms: durationMs, rate }, 'impact recording finished')
    })
  })
  return app
}

function durationParam(text: string): number {
  let ns: bigint
  try {
    ns = parseDuration(text)
  } catch {
    throw badRequest(`impact: duration ${JSON.stringify(text)} is not a duration (e.g. 30s, 5m)`)
  }
  const ms = Number(ns / 1_000_000n)
  if (ms <= 0 || ms > MAX_IMPACT_DURATION_MS) {
    throw badRequest(`impact: duration must be above 0 and at most 24h, got ${text}`)
  }
  return ms
}

function rateParam(text: string): number {
  const rate = Number(text)
  if (text.trim() === '' || !Number.isFinite(rate) || rate < 0 || rate > 1) {
    throw badRequest(`impact: rate must be a number from 0 to 1, got ${JSON.stringify(text)}`)
  }
  return rate
}

/** The candidate bundle compiled as the server compiles its own (same Rego version, limits). */
async function loadCandidate(bytes: Buffer, deps: RunServerDeps): Promise<ServerState> {
  // The bundle loader reads files: the candidate goes through a private temp file.
  const path = join(tmpdir(), `regent-impact-${randomUUID()}.tar.gz`)
  await writeFile(path, bytes, { mode: 0o600 })
  try {
    const loaded = await loadInitialState({
      paths: [],
      bundles: [path],
      ignore: [],
      regoVersion: deps.state.options.regoVersion,
    })
    return new ServerState(loaded, deps.state.options)
  } catch (err) {
    const message = err instanceof RegoErrors ? err.message : (err as Error).message
    throw badRequest(`impact: candidate bundle: ${message.replaceAll(path, 'candidate')}`)
  } finally {
    await rm(path, { force: true })
  }
}
