/**
 * One compile request answered as the bytes to send: status, media type and body text (OPA's
 * error envelope for failures). The route calls it in process; the relay calls it on a worker
 * thread (relay/compile/), where the answer must cross a thread as plain data, so it is text.
 */
import type { ContentfulStatusCode } from 'hono/utils/http-status'
import { HttpError } from '../core/http/index.js'
import type { CompileInput, CompileService } from './compile.js'
import { CompileFailure, internalFailure } from './errors.js'
import { serializeJson } from './response.js'

/** A compile request as a runner takes it: the route's input plus `?pretty`. */
export interface CompileRequest extends CompileInput {
  pretty: boolean
}

/** What to send back. */
export interface CompileAnswer {
  status: ContentfulStatusCode
  contentType: string
  text: string
  /** Extra headers (`Retry-After` on 503). */
  headers?: Record<string, string>
  /** For the log, never the client: what went wrong behind a 5xx (message and stack). */
  serverError?: string
}

/** Runs compile requests: in process (`answerCompile`) or on worker threads (the relay's pool). */
export type CompileRunner = (request: CompileRequest) => Promise<CompileAnswer>

/** Answers one request with `service`; never throws. */
export async function answerCompile(
  service: CompileService,
  request: CompileRequest,
): Promise<CompileAnswer> {
  try {
    const output = await service.compile(request)
    return { status: 200, contentType: output.mediaType, text: serializeJson(output.body, request.pretty) }
  } catch (err) {
    const answer = failureAnswer(err)
    if (answer.status < 500) return answer
    return { ...answer, serverError: err instanceof Error ? (err.stack ?? err.message) : String(err) }
  }
}

/** The answer for anything thrown while compiling: OPA's envelope, never internals of a crash. */
export function failureAnswer(err: unknown): CompileAnswer {
  if (err instanceof CompileFailure) return errorAnswer(err.status, err.toJSON())
  // Body limits and encodings (413, 415) from the shared HTTP helpers.
  if (err instanceof HttpError)
    return errorAnswer(err.status, { code: err.code, message: err.message }, err.headers)
  return errorAnswer(500, internalFailure('internal error').toJSON())
}

/** An error answer; error bodies are always pretty-printed, as OPA writes them. */
export function errorAnswer(
  status: ContentfulStatusCode,
  body: object,
  headers?: Record<string, string>,
): CompileAnswer {
  return {
    status,
    contentType: 'application/json',
    text: serializeJson(body, true),
    ...(headers ? { headers } : {}),
  }
}
