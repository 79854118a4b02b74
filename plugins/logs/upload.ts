/**
 * One upload attempt to the upstream logs resource, as an OPA agent makes it: POST of a gzip
 * JSON array, `Content-Type: application/json`, `Content-Encoding: gzip`. The attempt's outcome
 * is classified here so the forwarder's retry policy reads as a table.
 */
import { isUpstreamTimeout, sendRequest, type UpstreamResponse } from '../rest/http-request.js'
import type { ServiceClient } from '../rest/service-client.js'

/** Sends one upload request; the relay passes its service client (credentials, TLS) here. */
export type UpstreamSend = (request: {
  body: Buffer
  headers: Record<string, string>
  signal: AbortSignal
  timeoutMs: number
}) => Promise<UpstreamResponse>

/** Where batches go: the URL of the upstream logs resource and how to reach it. */
export interface UpstreamTarget {
  /** Full URL, e.g. `https://service.example/v1/logs` (also shown in status). */
  url: string
  /** How to send; a plain POST to `url` when absent. */
  send?: UpstreamSend
}

/** The logs resource of a configured service, sent through its client (credentials, TLS, headers). */
export function serviceUploadTarget(client: ServiceClient, resource: string): UpstreamTarget {
  return {
    url: client.urlOf(resource),
    send: ({ body, headers, signal, timeoutMs }) =>
      client.send({
        method: 'POST',
        resource,
        headers,
        body,
        signal,
        headersTimeoutMs: timeoutMs,
        bodyTimeoutMs: timeoutMs,
      }),
  }
}

/** How an attempt ended, and what the forwarder does about it. */
export type UploadOutcome =
  | { kind: 'delivered'; status: number }
  /** 413: split the batch (or dead-letter a lone event). */
  | { kind: 'too_large'; status: number }
  /** 4xx other than 408/413/429: retried a bounded number of times, then dead-lettered. */
  | { kind: 'rejected'; status: number; message: string }
  /** 5xx, 408, 429, network errors and timeouts: retried until it works. */
  | { kind: 'retry'; status: string; message: string; retryAfterMs?: number }

const USER_AGENT = 'regent-relay'

/**
 * Posts one gzip batch. Never throws for upstream trouble (that is an outcome); throws only when
 * `stop` is aborted, so a shutdown ends the attempt at once.
 */
export async function postBatch(
  target: UpstreamTarget,
  gzipBody: Buffer,
  timeoutMs: number,
  stop: AbortSignal,
): Promise<UploadOutcome> {
  const timeout = AbortSignal.timeout(timeoutMs)
  const signal = AbortSignal.any([stop, timeout])
  try {
    // The User-Agent is the sender's: a service client sets its own, a plain POST says regent-relay.
    const headers = { 'content-type': 'application/json', 'content-encoding': 'gzip' }
    const send = target.send ?? plainPost(target.url)
    const res = await send({ body: gzipBody, headers, signal, timeoutMs })
    const status = res.statusCode
    if (status >= 200 && status < 300) {
      await res.body.dump()
      return { kind: 'delivered', status }
    }
    const text = reasonOf(await readSome(res.body, 2000))
    if (status === 413) return { kind: 'too_large', status }
    const message = `upstream answered ${status}${text ? `: ${text}` : ''}`
    if (status >= 400 && status < 500 && status !== 408 && status !== 429)
      return { kind: 'rejected', status, message }
    const retryAfterMs =
      status === 429 || status === 503 ? parseRetryAfter(res.headers['retry-after']) : undefined
    return { kind: 'retry', status: String(status), message, retryAfterMs }
  } catch (err) {
    if (stop.aborted) throw stop.reason ?? err
    if (timeout.aborted)
      return { kind: 'retry', status: 'timeout', message: `no answer within ${timeoutMs} ms` }
    const e = err as Error & { code?: string }
    if (isUpstreamTimeout(err)) {
      return { kind: 'retry', status: 'timeout', message: `no answer within ${timeoutMs} ms` }
    }
    return { kind: 'retry', status: 'network', message: `${e.code ? `${e.code}: ` : ''}${e.message}` }
  }
}

function plainPost(url: string): UpstreamSend {
  return ({ body, headers, signal, timeoutMs }) =>
    sendRequest(url, {
      method: 'POST',
      headers: { ...headers, 'user-agent': USER_AGENT },
      body,
      signal,
      headersTimeoutMs: timeoutMs,
      bodyTimeoutMs: timeoutMs,
    })
}

/**
 * `Retry-After` as milliseconds: delta-seconds or an HTTP date; undefined when absent or bad.
 * @example parseRetryAfter('2') // 2000
 */
export function parseRetryAfter(value: string | string[] | undefined, now = Date.now()): number | undefined {
  const v = Array.isArray(value) ? value[0] : value
  if (v === undefined || v.trim() === '') return undefined
  if (/^\s*\d+\s*$/.test(v)) return Number(v) * 1000
  const at = Date.parse(v)
  return Number.isNaN(at) ? undefined : Math.max(0, at - now)
}

/**
 * The upstream's reason: the `message` of a JSON error body (the management API's and OPA's
 * shape), else the body's text; at most 300 characters.
 */
function reasonOf(text: string): string {
  let reason = text
  try {
    const body = JSON.parse(text) as { message?: unknown }
    if (typeof body?.message === 'string' && body.message !== '') reason = body.message
  } catch {
    // Not JSON: the text is the reason.
  }
  return reason.length > 300 ? `${reason.slice(0, 300)}…` : reason
}

async function readSome(body: UpstreamResponse['body'], max = 300): Promise<string> {
  try {
    // A little more than is kept, so a cut reason still shows its ellipsis.
    const text = await body.text(max * 4 + 4)
    return text.length > max ? `${text.slice(0, max)}…` : text
  } catch {
    return ''
  }
}
