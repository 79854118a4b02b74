/**
 * The relay's hot compile path: `POST /v1/compile[/{path}]` from a caller on loopback, with a
 * plain (not encoded) body of a declared length within the limit and no query string, read and
 * answered on Node's request and response before Hono. Per request Hono's middleware (request id,
 * child logger, metrics), the web Request wrapper and the Response cost the main thread about as
 * much as the whole bare route does (docs/performance.md). The answer, headers, request id,
 * metrics and log line are the ones the app's compile route gives; anything else (gzip or deflate
 * bodies, chunked bodies, oversized or unknown lengths, queries, encoded or unusual paths, other
 * hosts, `relay.agent_auth` set) goes to the app, which handles every refusal.
 */
import type { IncomingMessage, ServerResponse } from 'node:http'
import type { Logger } from 'pino'
import { type CompileAnswer, type CompileRunner, failureAnswer } from '../../compile/answer.js'
import { compileBodyText } from '../../compile/runner-route.js'
import {
  acceptedRequestId,
  type BodyLimits,
  DEFAULT_BODY_LIMITS,
  type FastPath,
  isLoopbackAddress,
} from '../../core/http/index.js'
import type { RelayMetrics } from '../metrics.js'

const PREFIX = '/v1/compile'
/** Paths the app would see unchanged: no query, no escapes, dots, empty or trailing segments. */
const PLAIN_PATH = /^\/v1\/compile(?:\/[\w-]+)*$/

/** What the compile fast path needs from the relay. */
export interface CompileFastPathOptions {
  run: CompileRunner
  /** Called before each request, as the app's middleware does (served bundles to the workers). */
  refresh: () => void
  metrics?: RelayMetrics
  logger: Logger
  limits?: BodyLimits
}

/** The fast path for compile requests (install only when `relay.agent_auth` is none). */
export function compileFastPath(options: CompileFastPathOptions): FastPath {
  const { run, refresh, logger } = options
  const maxBytes = (options.limits ?? DEFAULT_BODY_LIMITS).maxBytes
  const tallies = options.metrics?.tallies
  return (req: IncomingMessage, res: ServerResponse) => {
    const url = req.url ?? ''
    if (req.method !== 'POST' || !url.startsWith(PREFIX) || !PLAIN_PATH.test(url)) return false
    const headers = req.headers
    const declared = headers['content-length']
    if (
      declared === undefined ||
      !(Number(declared) <= maxBytes) ||
      headers['content-encoding'] !== undefined ||
      headers['transfer-encoding'] !== undefined
    )
      return false
    const address = req.socket.remoteAddress
    // The usual addresses first: parsing one (ipaddr.js) was ~1% of the main thread's time.
    if (
      address !== '127.0.0.1' &&
      address !== '::1' &&
      (address === undefined || !isLoopbackAddress(address))
    )
      return false

    const started = performance.now()
    const offered = headers['x-request-id']
    const requestId = acceptedRequestId(typeof offered === 'string' ? offered : undefined)
    const path = url.length === PREFIX.length ? undefined : url.slice(PREFIX.length + 1)
    refresh()

    const answer = (result: CompileAnswer) => {
      if (result.serverError !== undefined)
        logger.error({ req_id: requestId, err: result.serverError }, 'compile failed')
      const text = result.text
      res.writeHead(result.status, {
        ...result.headers,
        'Content-Type': result.contentType,
        'Content-Length': Buffer.byteLength(text),
        'X-Request-Id': requestId,
      })
      res.end(text)
      tallies?.agentRequests.add('other', String(result.status))
      const line = {
        req_id: requestId,
        method: 'POST',
        path: url,
        status: result.status,
        duration_ms: Math.round((performance.now() - started) * 100) / 100,
      }
      if (result.status >= 500) logger.warn(line, 'request')
      else logger.info(line, 'request')
    }
    const failed = (err: unknown) => {
      const result = failureAnswer(err)
      if (result.status >= 500) logger.error({ req_id: requestId, err }, 'compile failed')
      answer(result)
    }

    const chunks: Buffer[] = []
    let total = 0
    req.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      total += chunk.byteLength
    })
    req.once('error', () => res.destroy())
    req.once('end', () => {
      let bodyText: string
      try {
        bodyText = compileBodyText(chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, total))
      } catch (err) {
        failed(err)
        return
      }
      run({
        path,
        accept: headers.accept,
        contentType: headers['content-type'] ?? '',
        bodyText,
        metrics: false,
        pretty: false,
      }).then(answer, failed)
    })
    return true
  }
}
