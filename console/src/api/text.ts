/**
 * A text answer of the management API (the generated YAML configs of
 * `GET /v1/systems/{id}/assets/{type}`), with the same bearer token and the same refusals as
 * JSON calls.
 */
import { type ApiClient, ApiError } from './client'

export async function getText(api: ApiClient, path: string, signal?: AbortSignal): Promise<string> {
  const res = await fetch(path, {
    signal,
    headers: {
      Authorization: `Bearer ${api.token}`,
      Accept: 'application/yaml, text/plain, application/json',
    },
    credentials: 'omit',
    cache: 'no-store',
  })
  const text = await res.text()
  if (!res.ok) {
    let message = `HTTP ${res.status}`
    let code = 'error'
    try {
      const body = JSON.parse(text) as { code?: string; message?: string }
      message = body.message ?? message
      code = body.code ?? code
    } catch {
      // Not JSON: the status says enough.
    }
    throw new ApiError(res.status, code, message)
  }
  return text
}
