/**
 * Intake: `POST /v1/logs`, `/v1/logs/{partition}` and any configured path, as OPA agents send
 * decision logs (a gzip or identity JSON array of events). The answer is 204 only after the
 * events are committed; every refusal says why, and a refusal stores nothing.
 *
 * Statuses: 400 for a body that is not (gzip of) a UTF-8 JSON array of objects (a gzip bomb
 * included: it is refused as soon as it inflates past the limit); 413 past the wire-size limit
 * or when one request is larger than the whole buffer; 503 with `Retry-After` when the buffer is
 * full under backpressure, the disk is full, the file is locked past the busy timeout, or the
 * relay is shutting down: OPA keeps its copy and retries.
 */
import { isUtf8 } from 'node:buffer'
import type { Context, Hono } from 'hono'
import type { Logger } from 'pino'
import {
  type AppEnv,
  badRequest,
  HttpError,
  payloadTooLarge,
  readBody,
  serviceUnavailable,
} from '../../core/http/index.js'
import type { AppendOutcome } from '../../store/decision-buffer/index.js'
import type { DecisionLogsConfig } from './config.js'
import type { GroupCommitter } from './group-commit.js'
import type { DecisionLogMetrics } from './metrics.js'
import { EventsFormatError, splitEvents } from './split-events.js'

/** What the intake routes need from the decision-log part. */
export interface IntakeDeps {
  config: Pick<DecisionLogsConfig, 'intake' | 'buffer'>
  committer: GroupCommitter
  metrics: DecisionLogMetrics
  logger: Logger
  /** Registers a request; false once shutdown began (the upload gets 503). */
  enter: () => boolean
  /** Ends a request registered with `enter` (shutdown waits for these to commit). */
  leave: () => void
}

// SQLite result codes that mean "cannot write now" rather than "bug": the agent should retry.
const TRANSIENT_SQLITE = /^SQLITE_(BUSY|LOCKED|FULL|IOERR|CANTOPEN|READONLY|PROTOCOL)/

/**
 * Installs the intake routes on `app`: each configured path, and the same with a partition suffix.
 * @example installDecisionLogRoutes(app, decisionLogs.intakeDeps)
 */
export function installDecisionLogRoutes(app: Hono<AppEnv>, deps: IntakeDeps): void {
  const handler = createIntakeHandler(deps)
  for (const path of deps.config.intake.paths) {
    const base = path.length > 1 ? path.replace(/\/+$/, '') : path
    app.post(base, handler)
    app.post(`${base === '/' ? '' : base}/:partition{.+}`, handler)
  }
}

/** The intake handler alone (for mounting under other paths). */
export function createIntakeHandler(deps: IntakeDeps) {
  const retryAfter = deps.config.buffer.retry_after_seconds
  return async (c: Context<AppEnv>): Promise<Response> => {
    let events = 0
    let malformed = 0
    if (!deps.enter()) {
      deps.metrics.intake(503)
      throw serviceUnavailable('the relay is shutting down; retry later', retryAfter)
    }
    try {
      const text = await readEventsText(c, deps.config.intake)
      const split = parseEvents(text)
      const outcome = await commit(deps, split.events)
      refuseUnlessStored(outcome, retryAfter)
      events = split.events.length
      malformed = split.malformed
      deps.metrics.intake(204, events, malformed)
      return c.body(null, 204)
    } catch (err) {
      deps.metrics.intake(err instanceof HttpError ? err.status : 500)
      throw err
    } finally {
      deps.leave()
    }
  }
}

async function readEventsText(c: Context<AppEnv>, limits: DecisionLogsConfig['intake']): Promise<string> {
  let bytes: Buffer
  try {
    bytes = await readBody(c, {
      maxBytes: limits.max_body_bytes,
      maxDecompressedBytes: limits.max_decompressed_bytes,
    })
  } catch (err) {
    // NOTE(decision-logs): a body that inflates past the limit is a gzip bomb, not an oversized
    // upload (those are refused on the wire size): the issue asks for 400 with the reason.
    if (err instanceof HttpError && err.status === 413 && /inflates/.test(err.message)) {
      throw badRequest(`${err.message} (limit relay.decision_logs.intake.max_decompressed_bytes)`)
    }
    throw err
  }
  if (!isUtf8(bytes)) throw badRequest('the body is not valid UTF-8 JSON')
  return bytes.toString('utf8')
}

function parseEvents(text: string) {
  try {
    const split = splitEvents(text)
    // An all-ASCII body (the usual case): each event's byte length is its string length.
    if (Buffer.byteLength(text) === text.length) for (const e of split.events) e.bytes = e.text.length
    return split
  } catch (err) {
    if (err instanceof EventsFormatError)
      throw badRequest(`the body is not a JSON array of decision events: ${err.message}`)
    throw err
  }
}

async function commit(
  deps: IntakeDeps,
  events: Parameters<GroupCommitter['submit']>[0],
): Promise<AppendOutcome> {
  try {
    return await deps.committer.submit(events)
  } catch (err) {
    const code = (err as { code?: string }).code ?? ''
    const closed = /closed/i.test((err as Error).message)
    if (TRANSIENT_SQLITE.test(code) || closed) {
      deps.logger.warn({ err, code }, 'decision-log commit failed; answering 503 so the agent retries')
      throw serviceUnavailable(
        `the decision-log buffer cannot store events now (${code || 'closed'}); retry later`,
        deps.config.buffer.retry_after_seconds,
      )
    }
    throw err
  }
}

function refuseUnlessStored(outcome: AppendOutcome, retryAfter: number): void {
  if (outcome.kind === 'full') {
    throw serviceUnavailable(
      `the decision-log buffer is full (relay.decision_logs.buffer.max_bytes; ${outcome.freeBytes} bytes free, ${outcome.needBytes} needed); retry later`,
      retryAfter,
    )
  }
  if (outcome.kind === 'too_large') {
    throw payloadTooLarge(
      `the events of this request (${outcome.bytes} bytes) exceed the whole buffer (relay.decision_logs.buffer.max_bytes = ${outcome.maxBytes})`,
    )
  }
}
