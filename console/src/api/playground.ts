/**
 * The compile playground (`POST /v1/systems/{id}/compile/{rule path}`, docs/console.md): the
 * system's modules with the edited ones over them, compiled as the relay serving the system would
 * answer `POST /v1/compile/{rule path}` with the given `Accept`. A compile error is a result
 * (`result.status` 400 and OPA's error envelope), not a failure of the call.
 */
import type { ApiClient } from './client'
import { idPath } from './client'

/** The targets a relay compiles to, by their `Accept` media type (docs/compile.md). */
export const TARGETS: Array<{ accept: string; label: string; sql: boolean }> = [
  { accept: 'application/vnd.opa.sql.postgresql+json', label: 'SQL: PostgreSQL', sql: true },
  { accept: 'application/vnd.opa.sql.mysql+json', label: 'SQL: MySQL', sql: true },
  { accept: 'application/vnd.opa.sql.sqlserver+json', label: 'SQL: SQL Server', sql: true },
  { accept: 'application/vnd.opa.sql.sqlite+json', label: 'SQL: SQLite', sql: true },
  { accept: 'application/vnd.opa.ucast.all+json', label: 'UCAST: all', sql: false },
  { accept: 'application/vnd.opa.ucast.minimal+json', label: 'UCAST: minimal', sql: false },
  { accept: 'application/vnd.opa.ucast.prisma+json', label: 'UCAST: Prisma', sql: false },
  { accept: 'application/vnd.opa.ucast.linq+json', label: 'UCAST: LINQ', sql: false },
]

export interface PlaygroundRequest {
  /** Edited modules by name (`<policy path>/<file>`), over the system's. */
  modules: Record<string, string>
  accept: string
  /** The relay's compile body: `input`, `unknowns`, `options`. */
  request: Record<string, unknown>
}

export interface CompileErrorItem {
  code?: string
  message?: string
  location?: { file?: string; row?: number; col?: number }
  details?: unknown
}

/** What the relay would answer: its status, content type and body. */
export interface CompileOutcome {
  status: number
  content_type: string
  body: {
    result?: { query?: unknown; masks?: unknown }
    code?: string
    message?: string
    errors?: CompileErrorItem[]
  }
}

/** A stored policy as `GET /v1/policies` lists it. */
export interface PolicySource {
  id: string
  modules: Record<string, string>
}

export async function compileInPlayground(
  api: ApiClient,
  system: string,
  rulePath: string,
  body: PlaygroundRequest,
): Promise<CompileOutcome> {
  const path = `/v1/systems/${encodeURIComponent(system)}/compile/${idPath(rulePath.replace(/^\/+|\/+$/g, ''))}`
  const answer = await api.raw<{ result: CompileOutcome }>('POST', path, body)
  return answer.result
}

/** The system's modules by the names the playground uses (`<policy id>/<file>`). */
export async function systemModules(
  api: ApiClient,
  system: string,
  signal?: AbortSignal,
): Promise<Record<string, string>> {
  const policies = await api.get<PolicySource[]>('/v1/policies', { prefix: `systems/${system}` }, signal)
  const out: Record<string, string> = {}
  for (const p of policies) {
    // `prefix` also matches `systems/<id>x/…`: keep the system's own.
    if (!p.id.startsWith(`systems/${system}/`)) continue
    for (const [file, source] of Object.entries(p.modules)) out[`${p.id}/${file}`] = source
  }
  return out
}
