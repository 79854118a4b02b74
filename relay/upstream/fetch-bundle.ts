/**
 * One bundle download from upstream, as an OPA agent makes it: `If-None-Match` with the held
 * ETag, `Prefer` asking for snapshots (the relay never chains deltas) and, in long-poll mode,
 * `wait=N`. The body is read with a byte limit enforced while it streams, so an oversized or
 * endless response is cut off without being buffered whole.
 */
import type { ServiceClient } from './service-client.js'

/** The media type that keeps an agent (and the relay, upstream) in long-poll mode. */
export const LONG_POLL_CONTENT_TYPE = 'application/vnd.openpolicyagent.bundles'

/** Why a download failed; `code` is used in metrics and the relay's status. */
export class UpstreamError extends Error {
  constructor(
    readonly code: 'http_error' | 'network_error' | 'timeout' | 'too_large',
    message: string,
    readonly httpStatus?: number,
  ) {
    super(message)
    this.name = 'UpstreamError'
  }
}

/** What came back. */
export type FetchResult =
  | { kind: 'not-modified'; etag?: string }
  | { kind: 'modified'; bytes: Uint8Array; etag?: string; contentType: string }

export interface FetchOptions {
  etag?: string
  /** Seconds to ask the upstream to hold the request (long polling). */
  waitSeconds?: number
  /** Bytes the download may have. */
  maxBytes: number
  signal?: AbortSignal
}

/** Performs one conditional GET of `resource`. */
export async function fetchBundle(
  client: ServiceClient,
  resource: string,
  options: FetchOptions,
): Promise<FetchResult> {
  const headers: Record<string, string> = {
    Prefer: options.waitSeconds ? `modes=snapshot;wait=${options.waitSeconds}` : 'modes=snapshot',
  }
  if (options.etag) headers['If-None-Match'] = options.etag
  // A long poll may legitimately take `wait` seconds before headers arrive; past that plus the
  // usual header timeout the upstream is hanging, not holding.
  const headersTimeoutMs = options.waitSeconds
    ? options.waitSeconds * 1000 + client.defaultHeadersTimeoutMs
    : undefined
  let response: Awaited<ReturnType<ServiceClient['send']>>
  try {
    response = await client.send({
      method: 'GET',
      resource,
      headers,
      headersTimeoutMs,
      signal: options.signal,
    })
  } catch (err) {
    throw asUpstreamError(err)
  }
  const etag = headerValue(response.headers.etag)
  if (response.statusCode === 304) {
    await response.body.dump()
    return { kind: 'not-modified', etag }
  }
  if (response.statusCode !== 200) {
    const excerpt = await readExcerpt(response.body)
    throw new UpstreamError(
      'http_error',
      `upstream answered ${response.statusCode}${excerpt ? `: ${excerpt}` : ''}`,
      response.statusCode,
    )
  }
  const declared = Number(headerValue(response.headers['content-length']) ?? Number.NaN)
  if (declared > options.maxBytes) {
    response.body.destroy()
    throw tooLarge(options.maxBytes)
  }
  const chunks: Buffer[] = []
  let total = 0
  try {
    for await (const chunk of response.body) {
      total += (chunk as Buffer).byteLength
      if (total > options.maxBytes) {
        response.body.destroy()
        throw tooLarge(options.maxBytes)
      }
      chunks.push(chunk as Buffer)
    }
  } catch (err) {
    throw asUpstreamError(err)
  }
  const bytes = Buffer.concat(chunks, total)
  return {
    kind: 'modified',
    bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength),
    etag,
    contentType: (headerValue(response.headers['content-type']) ?? '').split(';')[0]!.trim().toLowerCase(),
  }
}

function tooLarge(maxBytes: number): UpstreamError {
  return new UpstreamError('too_large', `bundle download exceeds size_limit_bytes (${maxBytes} bytes)`)
}

function headerValue(value: string | string[] | undefined): string | undefined {
  const first = Array.isArray(value) ? value[0] : value
  return first === '' ? undefined : first
}

async function readExcerpt(body: AsyncIterable<unknown> & { destroy(): void }): Promise<string> {
  // Enough of an error body to explain it in a log line, never more.
  let text = ''
  try {
    for await (const chunk of body) {
      text += Buffer.from(chunk as Buffer).toString('utf8')
      if (text.length > 200) break
    }
  } catch {
    /* the status says enough */
  }
  body.destroy()
  return text.slice(0, 200).replace(/\s+/g, ' ').trim()
}

function asUpstreamError(err: unknown): UpstreamError {
  if (err instanceof UpstreamError) return err
  const code = (err as { code?: string }).code ?? ''
  const message = err instanceof Error ? err.message : String(err)
  if (code === 'UND_ERR_HEADERS_TIMEOUT' || code === 'UND_ERR_BODY_TIMEOUT') {
    return new UpstreamError('timeout', `upstream timed out: ${message}`)
  }
  return new UpstreamError('network_error', `upstream unreachable: ${code ? `${code} ` : ''}${message}`)
}
