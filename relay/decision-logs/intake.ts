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
import type { IncomingMessage } from 'node:http'
import type { Context, Hono } from 'hono'
import type { Logger } from 'pino'
import {
  type AppEnv,
  badRequest,
  HttpError,
  payloadTooLarge,
  serviceUnavailable,
  unsupportedMediaType,
} from '../../core/http/index.js'
import type { AppendAnswer } from '../../plugins/logs/buffer-protocol.js'
import type { BufferThread } from '../../plugins/logs/buffer-thread.js'
import type { DecisionLogsConfig } from '../../plugins/logs/config.js'
import type { DecisionLogMetrics } from '../../plugins/logs/metrics.js'
import type { ParsePool } from '../../plugins/logs/parse-pool.js'
import type { AppendOutcome } from '../../store/decision-buffer/index.js'

/** What the intake routes need from the decision-log part. */
export interface IntakeDeps {
  config: Pick<DecisionLogsConfig, 'intake' | 'buffer'>
  /** Commits events (group commit on the buffer thread). */
  buffer: Pick<BufferThread, 'append' | 'appendRaw' | 'ticket' | 'forget'>
  /** Inflates and splits bodies on worker threads; with none, the buffer thread does it. */
  parser: ParsePool
  /** Called after a request's events were committed (wakes the forwarder). */
  afterCommit: () => void
  metrics: DecisionLogMetrics
  logger: Logger
  /** Registers a request; false once shutdown began (the upload gets 503). */
  enter: () => boolean
  /** Ends a request registered with `enter` (shutdown waits for these to commit). */
  leave: () => void
  /** Requests between `enter` and `leave` now (parse workers start when several overlap). */
  concurrent?: () => number
  /** Called before a body is stored: opens a buffer that opens on demand. */
  ready?: () => Promise<void>
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
      const stored = await store(c, deps)
      refuseUnlessStored(stored.outcome, retryAfter)
      deps.afterCommit()
      events = stored.events
      malformed = stored.malformed
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

/**
 * The body as received (not inflated: that is the parser's job, on a worker thread), refused
 * with 413 past `maxBytes`. Read from Node's request directly when served by @hono/node-server
 * (a web stream over it costs more than the read itself), else from the web request.
 */
async function readRawBody(c: Context<AppEnv>, maxBytes: number): Promise<Buffer> {
  const tooLarge = () =>
    payloadTooLarge(
      `request body is larger than ${maxBytes} bytes (relay.decision_logs.intake.max_body_bytes)`,
    )
  if (Number(c.req.header('Content-Length') ?? 0) > maxBytes) throw tooLarge()
  const incoming = (c.env as { incoming?: IncomingMessage } | undefined)?.incoming
  if (incoming && typeof incoming.on === 'function' && !incoming.readableDidRead) {
    return readIncoming(incoming, maxBytes, tooLarge)
  }
  const stream = c.req.raw.body
  if (!stream) return Buffer.alloc(0)
  const chunks: Uint8Array[] = []
  let total = 0
  const reader = stream.getReader()
  for (;;) {
    const { done, value } = await reader.read()
    if (done) break
    total += value.byteLength
    if (total > maxBytes) {
      await reader.cancel().catch(() => {})
      throw tooLarge()
    }
    chunks.push(value)
  }
  return Buffer.concat(chunks, total)
}

function readIncoming(incoming: IncomingMessage, maxBytes: number, tooLarge: () => Error): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = []
    let total = 0
    const done = (err?: Error) => {
      incoming.off('data', onData)
      incoming.off('end', onEnd)
      incoming.off('error', onError)
      incoming.off('close', onClose)
      if (err) reject(err)
      else resolve(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total))
    }
    const onData = (chunk: Buffer) => {
      total += chunk.byteLength
      // The server drains the rest of the body once the answer is sent.
      if (total > maxBytes) done(tooLarge())
      else chunks.push(chunk)
    }
    const onEnd = () => done()
    const onError = (err: Error) => done(err)
    const onClose = () => done(new Error('the client closed the request before its body ended'))
    incoming.on('data', onData)
    incoming.on('end', onEnd)
    incoming.on('error', onError)
    incoming.on('close', onClose)
  })
}

/** Reads, parses and commits one upload; refusals are thrown as HttpErrors. */
async function store(c: Context<AppEnv>, deps: IntakeDeps): Promise<Extract<AppendAnswer, { ok: true }>> {
  const { intake } = deps.config
  const raw = await readRawBody(c, intake.max_body_bytes)
  const encoding = (c.req.header('Content-Encoding') ?? 'identity').trim().toLowerCase()
  let answer: AppendAnswer
  await openBuffer(deps)
  if (deps.parser.useWorkers(deps.concurrent?.() ?? 1)) {
    // The parse worker sends the events straight to the buffer thread; the answer comes here.
    const ticket = deps.buffer.ticket()
    let parsed: Awaited<ReturnType<ParsePool['parseInto']>>
    try {
      parsed = await deps.parser.parseInto(ticket.id, raw, encoding, intake.max_decompressed_bytes)
    } catch (err) {
      deps.buffer.forget(ticket.id)
      throw err
    }
    if (!parsed.ok) {
      deps.buffer.forget(ticket.id)
      throw refusal(parsed)
    }
    if ('forwarded' in parsed) {
      answer = await commit(deps, () => ticket.answer)
    } else {
      deps.buffer.forget(ticket.id)
      answer = await commit(deps, () => deps.buffer.append(parsed.split))
    }
  } else {
    answer = await commit(deps, () => deps.buffer.appendRaw(raw, encoding, intake.max_decompressed_bytes))
  }
  if (!answer.ok) throw refusal(answer)
  return answer
}

function refusal(refused: Extract<AppendAnswer, { ok: false }>): HttpError {
  return refused.status === 415 ? unsupportedMediaType(refused.message) : badRequest(refused.message)
}

/** Opens a buffer that opens on demand; a failure is a 503 (nothing was stored, the agent retries). */
async function openBuffer(deps: IntakeDeps): Promise<void> {
  try {
    await deps.ready?.()
  } catch (err) {
    deps.logger.warn({ reason: (err as Error).message }, 'cannot open the decision-log buffer')
    throw serviceUnavailable(
      `the decision-log buffer cannot be opened now (${(err as Error).message}); retry later`,
      deps.config.buffer.retry_after_seconds,
    )
  }
}

async function commit(deps: IntakeDeps, append: () => Promise<AppendAnswer>): Promise<AppendAnswer> {
  try {
    return await append()
  } catch (err) {
    const code = (err as { code?: string }).code ?? ''
    const closed = /closed/i.test((err as Error).message)
    if (TRANSIENT_SQLITE.test(code) || closed) {
      // Expected (a full disk, a busy file): the request's log line carries this message.
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
