/**
 * The console's only way to the service: the public management API, with the signed-in
 * subject's bearer token. Nothing here has privileges of its own; what the API refuses, the
 * console cannot show.
 */
import type { Envelope, ErrorBody } from './types'

/** A refusal or failure of the API, with its status and the service's message. */
export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
  ) {
    super(message)
  }
}

export type Query = Record<string, string | number | boolean | undefined>

/** Calls the management API as one subject. */
export class ApiClient {
  constructor(
    readonly token: string,
    /** Called when the service says the token is no longer valid (401): the console signs out. */
    private readonly onUnauthorized: () => void = () => {},
    private readonly base = '',
  ) {}

  /** `GET path` and the envelope's `result`. */
  get<T>(path: string, query?: Query, signal?: AbortSignal): Promise<T> {
    return this.call<T>('GET', withQuery(path, query), undefined, signal)
  }

  post<T>(path: string, body?: unknown, query?: Query): Promise<T> {
    return this.call<T>('POST', withQuery(path, query), body)
  }

  put<T>(path: string, body: unknown): Promise<T> {
    return this.call<T>('PUT', path, body)
  }

  delete<T>(path: string): Promise<T> {
    return this.call<T>('DELETE', path)
  }

  /** The whole JSON answer, for endpoints whose useful fields sit beside `result`. */
  async raw<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const res = await fetch(this.base + path, {
      method,
      signal,
      headers: {
        Authorization: `Bearer ${this.token}`,
        Accept: 'application/json',
        ...(body === undefined ? {} : { 'Content-Type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
      // The token travels in the header only; no cookie is ever sent or set.
      credentials: 'omit',
      cache: 'no-store',
    })
    const text = await res.text()
    let parsed: unknown
    try {
      parsed = text === '' ? {} : JSON.parse(text)
    } catch {
      throw new ApiError(res.status, 'bad_response', `the service answered ${res.status} with no JSON`)
    }
    if (!res.ok) {
      const err = parsed as Partial<ErrorBody>
      if (res.status === 401) this.onUnauthorized()
      throw new ApiError(res.status, err.code ?? 'error', err.message ?? `HTTP ${res.status}`)
    }
    return parsed as T
  }

  private async call<T>(method: string, path: string, body?: unknown, signal?: AbortSignal): Promise<T> {
    const answer = await this.raw<Envelope<T>>(method, path, body, signal)
    return answer.result as T
  }
}

/** `path?key=value&…`, leaving out undefined values. */
export function withQuery(path: string, query?: Query): string {
  if (!query) return path
  const params = new URLSearchParams()
  for (const [key, value] of Object.entries(query)) {
    if (value !== undefined && value !== '') params.set(key, String(value))
  }
  const text = params.toString()
  return text === '' ? path : `${path}${path.includes('?') ? '&' : '?'}${text}`
}

/** A path segment of an id that may hold slashes (datasources, policies): each part encoded. */
export function idPath(id: string): string {
  return id.split('/').map(encodeURIComponent).join('/')
}
