/**
 * One bundle download from upstream, as an OPA agent makes it: `If-None-Match` with the held
 * ETag (and the ETag of a download refused before, whose body is never read again), `Prefer` asking for snapshots (the relay never chains deltas) and, in long-poll mode,
 * `wait=N`. The body is read with a byte limit enforced while it streams, so an oversized or
 * endless response is cut off without being buffered whole.
 */
import { isUpstreamTimeout } from '../rest/http-request.js'
import type { ServiceClient } from '../rest/service-client.js'

/** The media type that keeps an agent (and the relay, upstream) in long-poll mode. */
export const LONG_POLL_CONTENT_TYPE = 'application/vnd.openpolicyagent.bundles'

/** Why a download failed; `code` is used in metrics and the relay's status. */
export class UpstreamError extends Error {
  constructor(
    readonly code: 'http_error' | 'network_error' | 'timeout' | 'too_large',
    message: string,
    readonly httpStatus?: number,
    /** The ETag of a response refused for its size, so the puller does not fetch it again. */
    readonly etag?: string,
  ) {
    super(message)
    this.name = 'UpstreamError'
  }
}

/** What came back. */
export type FetchResult =
  | { kind: 'not-modified'; etag?: string }
  | { kind: 'modified'; bytes: Uint8Array; etag?: string; contentType: string }
  /** The upstream still has the bundle refused before (`refusedEtag`); its body was not read. */
  | { kind: 'refused-again'; etag: string }

export interface FetchOptions {
  etag?: string
  /** The ETag of a download refused before: sent in If-None-Match too, and never read again. */
  refusedEtag?: string
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
  // If-None-Match takes a list: an upstream that still has the refused bundle answers 304 too.
  const held = [options.etag, options.refusedEtag].filter((e): e is string => Boolean(e))
  if (held.length > 0) headers['If-None-Match'] = [...new Set(held)].join(', ')
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
  const refused = options.refusedEtag
  if (response.statusCode === 304) {
    await response.body.dump()
    // A 304 without an ETag matched the one tag sent when only the refused one was.
    if (refused && (etag === refused || (etag === undefined && !options.etag))) {
      return { kind: 'refused-again', etag: refused }
    }
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
  if (refused && etag === refused) {
    // An upstream that ignores If-None-Match: the body is not read at all.
    discard(response.body)
    return { kind: 'refused-again', etag: refused }
  }
  const declared = Number(headerValue(response.headers['content-length']) ?? Number.NaN)
  if (declared > options.maxBytes) {
    discard(response.body)
    throw tooLarge(options.maxBytes, etag)
  }
  const chunks: Buffer[] = []
  let total = 0
  try {
    for await (const chunk of response.body) {
      total += (chunk as Buffer).byteLength
      if (total > options.maxBytes) {
        discard(response.body)
        throw tooLarge(options.maxBytes, etag)
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

function tooLarge(maxBytes: number, etag: string | undefined): UpstreamError {
  const message = `bundle download exceeds size_limit_bytes (${maxBytes} bytes)`
  return new UpstreamError('too_large', message, undefined, etag)
}

// Drops a body without reading it; the stream may report the cut as an error nobody needs to see.
function discard(body: { on(event: 'error', listener: () => void): unknown; destroy(): void }): void {
  body.on('error', () => {})
  body.destroy()
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
  if (isUpstreamTimeout(err)) {
    return new UpstreamError('timeout', `upstream timed out: ${message}`)
  }
  return new UpstreamError('network_error', `upstream unreachable: ${code ? `${code} ` : ''}${message}`)
}
