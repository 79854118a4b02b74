/**
 * Target negotiation: the `Accept` header selects exactly one answer format. Exact string match (no
 * parameters or lists), in both the current `application/vnd.opa.*` and the spec's legacy
 * `application/vnd.styra.*` spellings; `application/json` asks for OPA's AST form. `*\/*` (what
 * curl sends by default) states no preference, so it gets the open compile API's default, the AST
 * form, as the spec calls it; the reference refuses it. Every refusal lists the media types.
 */
import { invalidParameter } from './errors.js'
import type { SqlDialect, Target } from './types.js'

/** What an Accept header selected. `mediaType` is echoed as the response `Content-Type`. */
export type AcceptedFormat =
  | { kind: 'ast'; mediaType: string }
  | { kind: 'single'; mediaType: string; target: Target }
  | { kind: 'multi'; mediaType: string }

const SQL_DIALECTS: readonly SqlDialect[] = ['postgresql', 'mysql', 'sqlserver', 'sqlite']
const UCAST_VARIANTS = ['all', 'minimal', 'prisma', 'linq'] as const

/** Every Accept value regent answers, mapped to what it selects (built once). */
const KNOWN: ReadonlyMap<string, AcceptedFormat> = buildKnown()

function buildKnown(): Map<string, AcceptedFormat> {
  const known = new Map<string, AcceptedFormat>()
  known.set('application/json', { kind: 'ast', mediaType: 'application/json' })
  for (const vendor of ['opa', 'styra']) {
    const multi = `application/vnd.${vendor}.multitarget+json`
    known.set(multi, { kind: 'multi', mediaType: multi })
    for (const variant of UCAST_VARIANTS) {
      const mediaType = `application/vnd.${vendor}.ucast.${variant}+json`
      known.set(mediaType, { kind: 'single', mediaType, target: { kind: 'ucast', variant } })
    }
    for (const dialect of SQL_DIALECTS) {
      const mediaType = `application/vnd.${vendor}.sql.${dialect}+json`
      known.set(mediaType, { kind: 'single', mediaType, target: { kind: 'sql', dialect, variant: dialect } })
    }
  }
  return known
}

/** Accept values that state no preference: answered with the open compile API's default (AST). */
const ANY = new Set(['*/*', 'application/*'])

/** The Accept values regent knows, for documentation and tests. */
export function knownAcceptValues(): string[] {
  return [...KNOWN.keys()]
}

// The current spellings; each vnd.opa type is also accepted as vnd.styra.
const LISTED = knownAcceptValues().filter((v) => !v.includes('vnd.styra.'))

/** The sentence every Accept refusal ends with: the media types to use. */
export const ACCEPT_CHOICES = `use one of: ${LISTED.join(', ')} (each application/vnd.opa.* type also as application/vnd.styra.*)`

/**
 * The format an `Accept` header selects.
 * @throws CompileFailure 400 `invalid_parameter` `Accept header: missing required header` (absent or
 *   empty), `… multiple headers not supported` (a comma), `… unsupported header: <value>` (anything
 *   else), each followed by `; use one of: …` with the media types.
 * @example negotiateAccept('application/vnd.opa.sql.postgresql+json').kind // 'single'
 */
export function negotiateAccept(header: string | undefined): AcceptedFormat {
  const value = (header ?? '').trim()
  const refuse = (reason: string) => invalidParameter(`Accept header: ${reason}; ${ACCEPT_CHOICES}`)
  if (value === '') throw refuse('missing required header')
  if (value.includes(',')) throw refuse('multiple headers not supported')
  if (ANY.has(value)) return { kind: 'ast', mediaType: 'application/json' }
  const format = KNOWN.get(value)
  if (!format) throw refuse(`unsupported header: ${value}`)
  return format
}
