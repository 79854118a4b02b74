/**
 * What the git categories share: the repository's mirror (through the git layer, the fetch
 * passing the run's request gate), the commit to read (`commit`, else `reference`), credentials
 * from a secret, and git errors as run errors. ssh remotes are refused: the git layer never
 * connects over ssh without host-key verification, and the spec gives datasources no host-key field.
 */
import { type GitCredentials, type GitError, type GitMirror, mirror, resolveReference } from '../git/index.js'
import { parseGoDuration } from '../go-duration.js'
import { type FetchContext, RunError } from './types.js'

/** The Git.Common fields a run reads. */
export interface GitSourceConfig {
  url: string
  commit?: string
  reference: string
  credentials?: string
  ssh_credentials?: unknown
  timeout: string
}

async function credentialsOf(
  config: GitSourceConfig,
  ctx: FetchContext,
): Promise<GitCredentials | undefined> {
  if (config.ssh_credentials !== undefined)
    throw new RunError(
      'git error: ssh remotes are not supported by git datasources in this build (no host-key configuration); use an https URL with credentials',
    )
  if (config.credentials === undefined) return undefined
  const value = await ctx.secret(config.credentials, 'credentials')
  const colon = value.indexOf(':')
  return colon > 0
    ? { http: { kind: 'basic', username: value.slice(0, colon), password: value.slice(colon + 1) } }
    : { http: { kind: 'token', token: value } }
}

/** The mirror, up to date, and the commit the configuration names. GitErrors pass through. */
export async function openRepository(
  config: GitSourceConfig,
  ctx: FetchContext,
): Promise<{ repo: GitMirror; commit: string }> {
  const credentials = await credentialsOf(config, ctx)
  const timeoutMs = parseGoDuration(config.timeout) ?? 60_000
  const repo = await ctx.gate.run(
    () => mirror(config.url, credentials, { dataDir: ctx.dataDir, timeoutMs }),
    ctx.signal,
  )
  const { commit } = await resolveReference(
    repo,
    config.commit ?? config.reference,
    config.commit ? 'commit' : 'reference',
  )
  return { repo, commit }
}

/** `git error: <code> (<field>): <message>`. */
export function describeGitError(err: GitError): string {
  return `git error: ${err.code}${err.field ? ` (${err.field})` : ''}: ${err.message}`
}

/** Milliseconds a git run may take: the fetch and the reads are separate commands, each bounded by `timeout`. */
export function gitRunTimeoutMs(config: { timeout: string }): number {
  return 2 * (parseGoDuration(config.timeout) ?? 60_000)
}
