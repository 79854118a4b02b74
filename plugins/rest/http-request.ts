/**
 * The upstream HTTP client of the relay and the agent: one request over `node:http`/`node:https`
 * with a keep-alive agent, a header timeout, a body (silence) timeout and an AbortSignal. It gives
 * back the subset of undici's ResponseData the callers use (statusCode, headers, a body that can
 * be dumped, read as text or iterated). It exists so the relay's main thread does not load the
 * `undici` package, which alone costs about 20 MB of idle RSS (docs/performance.md, "Relay idle
 * memory").
 */
import { Agent, request as httpRequest, type IncomingHttpHeaders, type IncomingMessage } from 'node:http'
import { Agent as HttpsAgent, request as httpsRequest } from 'node:https'

/** No response headers within the header timeout. Same message as undici's, which logs show. */
export class HeadersTimeoutError extends Error {
  readonly code = 'UPSTREAM_HEADERS_TIMEOUT'
  constructor() {
    super('Headers Timeout Error')
    this.name = 'HeadersTimeoutError'
  }
}

/** The body fell silent for longer than the body timeout. */
export class BodyTimeoutError extends Error {
  readonly code = 'UPSTREAM_BODY_TIMEOUT'
  constructor() {
    super('Body Timeout Error')
    this.name = 'BodyTimeoutError'
  }
}

/** True for both timeouts of this client. */
export function isUpstreamTimeout(err: unknown): boolean {
  return err instanceof HeadersTimeoutError || err instanceof BodyTimeoutError
}

/** TLS settings of a service (CA, client certificate, verification). */
export interface TlsOptions {
  ca?: string | Buffer
  cert?: string | Buffer
  key?: string | Buffer
  passphrase?: string
  servername?: string
  rejectUnauthorized?: boolean
}

/** A pooled keep-alive agent for `url`'s scheme; idle connections close after `idleMs`. */
export function createAgent(url: string, tls: TlsOptions, idleMs = 30_000): Agent {
  // `timeout` on a keep-alive agent is what closes a free socket after `idleMs` of silence;
  // active requests set their own socket timeouts below.
  const common = { keepAlive: true, timeout: idleMs }
  return new URL(url).protocol === 'https:' ? new HttpsAgent({ ...common, ...tls }) : new Agent(common)
}

export interface RequestOptions {
  method: string
  headers: Record<string, string>
  body?: Uint8Array | string
  /** Keep-alive pool; Node's global agent when absent. */
  agent?: Agent
  headersTimeoutMs: number
  bodyTimeoutMs: number
  signal?: AbortSignal
}

/** What a request gives back (the subset of undici's ResponseData callers use). */
export interface UpstreamResponse {
  statusCode: number
  headers: IncomingHttpHeaders
  body: ResponseBody
}

/** Sends one request; resolves once the response headers are in. */
export function sendRequest(url: string, options: RequestOptions): Promise<UpstreamResponse> {
  const { signal } = options
  if (signal?.aborted) return Promise.reject(abortReason(signal))
  return new Promise((resolve, reject) => {
    const send = url.startsWith('https:') ? httpsRequest : httpRequest
    const req = send(url, { method: options.method, headers: options.headers, agent: options.agent })
    let response: IncomingMessage | undefined
    const onAbort = () => {
      const reason = abortReason(signal as AbortSignal)
      if (response) response.destroy(reason)
      else req.destroy(reason)
    }
    signal?.addEventListener('abort', onAbort, { once: true })
    const done = () => signal?.removeEventListener('abort', onAbort)
    // One socket timer serves both timeouts: until the headers arrive the socket is silent for
    // the whole wait (a long poll included), afterwards silence means a stalled body.
    req.setTimeout(options.headersTimeoutMs, () => {
      if (response) response.destroy(new BodyTimeoutError())
      else req.destroy(new HeadersTimeoutError())
    })
    req.on('error', (err) => {
      done()
      reject(err)
    })
    req.on('response', (res) => {
      response = res
      req.setTimeout(options.bodyTimeoutMs)
      res.on('close', done)
      resolve({ statusCode: res.statusCode ?? 0, headers: res.headers, body: new ResponseBody(res) })
    })
    req.end(options.body)
  })
}

function abortReason(signal: AbortSignal): Error {
  const reason: unknown = signal.reason
  if (reason instanceof Error) return reason
  return Object.assign(new Error('This operation was aborted'), { name: 'AbortError', code: 'ABORT_ERR' })
}

/** How much of an unwanted body `dump()` reads to keep the connection before closing it instead. */
const DUMP_LIMIT = 128 * 1024

/** A response body: iterate it, read it as text (capped), or dump it. */
export class ResponseBody implements AsyncIterable<Buffer> {
  constructor(private readonly stream: IncomingMessage) {}

  [Symbol.asyncIterator](): AsyncIterator<Buffer> {
    return this.stream[Symbol.asyncIterator]()
  }

  /** The body as UTF-8, at most `maxBytes` of it (the connection is closed when there is more). */
  async text(maxBytes = 1024 * 1024): Promise<string> {
    const chunks: Buffer[] = []
    let total = 0
    for await (const chunk of this.stream as AsyncIterable<Buffer>) {
      const room = maxBytes - total
      chunks.push(chunk.byteLength > room ? chunk.subarray(0, room) : chunk)
      total += Math.min(chunk.byteLength, room)
      if (total >= maxBytes) break
    }
    // Breaking out of the loop destroys the stream, as a cap should.
    return Buffer.concat(chunks, total).toString('utf8')
  }

  /** Reads and drops the body, so a small one leaves the connection reusable; a large one closes it. */
  async dump(): Promise<void> {
    let left = DUMP_LIMIT
    for await (const chunk of this.stream as AsyncIterable<Buffer>) {
      left -= chunk.byteLength
      if (left < 0) break
    }
  }

  /** Closes the body unread; the connection is not reused. */
  destroy(): void {
    this.stream.destroy()
  }

  on(event: 'error', listener: (err: Error) => void): this {
    this.stream.on(event, listener)
    return this
  }
}
