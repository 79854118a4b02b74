/**
 * Reading the Kubernetes API for `cluster/resources`: GET requests with the service account's
 * bearer token over TLS checked against the cluster's CA, through the run's request gate
 * (rate_limit), every body counted against the run's byte limit and decoded off the main thread
 * when large. Redirects are not followed (undici's request does not).
 */
import { Agent, request } from 'undici'
import type { ClusterAccess } from './cluster-access.js'
import { decodeDocument } from './decode-off-thread.js'
import { type FetchContext, RunError } from './types.js'

/** An answer of the API server: its status and decoded JSON body. */
export interface ApiAnswer {
  status: number
  body: unknown
}

/** A client for one run: call `close` when done. */
export class ClusterApi {
  readonly #dispatcher: Agent
  #bytes = 0

  constructor(
    private readonly access: ClusterAccess,
    private readonly ctx: FetchContext,
  ) {
    this.#dispatcher = new Agent({ connect: { ca: access.ca, rejectUnauthorized: true } })
  }

  /** Bytes read so far. */
  get bytes(): number {
    return this.#bytes
  }

  /** GET `path` (with `query`). @throws RunError on a connection or TLS failure, the byte limit or a malformed body. */
  async get(
    path: string,
    query: Record<string, string | undefined> = {},
    accept = 'application/json',
  ): Promise<ApiAnswer> {
    const url = new URL(path, this.access.server)
    for (const [name, value] of Object.entries(query))
      if (value !== undefined) url.searchParams.set(name, value)
    const { ctx } = this
    const response = await ctx.gate
      .run(
        () =>
          request(url, {
            method: 'GET',
            headers: { authorization: `Bearer ${this.access.token}`, accept },
            dispatcher: this.#dispatcher,
            signal: ctx.signal,
          }),
        ctx.signal,
      )
      .catch((err: unknown) => {
        throw new RunError(describeFailure(ctx.signal.aborted ? ctx.signal.reason : err, this.access.server))
      })
    const chunks: Buffer[] = []
    try {
      for await (const chunk of response.body) {
        this.#bytes += (chunk as Buffer).byteLength
        if (this.#bytes > ctx.maxBytes) {
          response.body.destroy()
          throw new RunError(`size limit: the cluster's resources exceed ${ctx.maxBytes} bytes`)
        }
        chunks.push(chunk as Buffer)
      }
    } catch (err) {
      if (err instanceof RunError) throw err
      throw new RunError(describeFailure(ctx.signal.aborted ? ctx.signal.reason : err, this.access.server))
    }
    const bytes = Buffer.concat(chunks)
    if (response.statusCode >= 300) {
      let body: unknown
      try {
        body = JSON.parse(bytes.toString('utf8'))
      } catch {
        body = undefined
      }
      return { status: response.statusCode, body }
    }
    const body = await decodeDocument(bytes, 'json', url.pathname, ctx.maxYamlNodes, { signal: ctx.signal })
    return { status: response.statusCode, body }
  }

  async close(): Promise<void> {
    await this.#dispatcher.close().catch(() => {})
  }
}

/** The RunError for an API answer that is not the expected 200. */
export function apiFailure(what: string, status: number, body: unknown): RunError {
  if (status === 401)
    return new RunError(
      `auth error: the API server refused the service account token (401)${statusMessage(body)}`,
    )
  if (status === 403) return new RunError(`auth error: ${what} is forbidden (403)${statusMessage(body)}`)
  return new RunError(`cluster error: ${what} answered ${status}${statusMessage(body)}`)
}

/** The message of a Kubernetes `Status` body, if it is one. */
export function statusMessage(body: unknown): string {
  const message = (body as { message?: unknown } | undefined)?.message
  return typeof message === 'string' ? `: ${message}` : ''
}

function describeFailure(err: unknown, server: string): string {
  const code = (err as { code?: string }).code ?? (err as { cause?: { code?: string } }).cause?.code
  const message = err instanceof Error ? err.message : String(err)
  const name = (err as Error)?.name
  if (name === 'AbortError' || name === 'TimeoutError') return `timeout: ${server} did not answer in time`
  if (code && /CERT|SSL|TLS|SELF_SIGNED|UNABLE_TO_VERIFY|ALTNAME/.test(code))
    return `TLS error: ${code}: ${message}`
  if (code) return `connection error: ${server}: ${code}`
  return `request error: ${server}: ${message}`
}
