/**
 * What the git categories share: the repository's mirror (through the git layer, the fetch
 * passing the run's request gate), the commit to read (`commit`, else `reference`), and git errors
 * as run errors. Credentials follow the rules of systems' git origins (../git-origin/credentials.ts):
 * `credentials` is a login secret (name = username, value = password; empty name: a token),
 * `ssh_credentials` an ssh key whose remote's host key comes from `service.git.known_hosts` or is
 * trusted on first use and recorded.
 */
import { type GitError, type GitMirror, mirror, resolveReference } from '../git/index.js'
import { parseGoDuration } from '../go-duration.js'
import type { FetchContext } from './types.js'

/** The Git.Common fields a run reads. */
export interface GitSourceConfig {
  url: string
  commit?: string
  reference: string
  credentials?: string
  ssh_credentials?: { private_key: string; passphrase?: string }
  timeout: string
}

/** The mirror, up to date, and the commit the configuration names. GitErrors pass through. */
export async function openRepository(
  config: GitSourceConfig,
  ctx: FetchContext,
): Promise<{ repo: GitMirror; commit: string }> {
  const credentials = await ctx.gitCredentials({
    url: config.url,
    ...(config.credentials !== undefined ? { credentials: config.credentials } : {}),
    ...(config.ssh_credentials !== undefined ? { ssh_credentials: config.ssh_credentials } : {}),
  })
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
