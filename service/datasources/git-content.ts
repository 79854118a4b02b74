/**
 * Category `git/content`: the `.json`, `.yaml`/`.yml` and `.xml` files under `path` of a
 * repository at `commit` (or `reference`, default `refs/heads/master`), read through the git
 * layer (service/git/: a bare mirror in the data folder, fetched incrementally, no checkout).
 * Each file's document is placed at its path relative to `path`, without the extension
 * (`teams/red.yaml` → `{teams: {red: …}}`), so files merge into one tree by their paths.
 * Credentials: `credentials` names a secret holding a token (or `user:password`) for
 * http(s) remotes. ssh remotes need host keys the spec gives datasources no field for: refused.
 */
import { z } from 'zod'
import { DataConflictError, placeAt } from '../data-tree.js'
import { type GitCredentials, GitError, mirror, readTree, resolveReference } from '../git/index.js'
import { parseGoDuration } from '../go-duration.js'
import { decodeContent, formatOf } from './decode.js'
import { bothOrNeitherFilter, common, gitCommon, poller, rateLimiter, regoFiltering } from './mixins.js'
import { defineCategory, type FetchContext, type Fetched, RunError } from './types.js'

const schema = z
  .strictObject({
    category: z.literal('git/content'),
    ...common,
    ...poller,
    ...rateLimiter,
    ...regoFiltering,
    ...gitCommon,
    path: z.string({ error: 'expected a string' }).optional(),
  })
  .superRefine(bothOrNeitherFilter)

type GitContentConfig = z.output<typeof schema>

const CONTENT_FILE = /\.(json|ya?ml|xml)$/i

async function credentialsOf(
  config: GitContentConfig,
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

function describeGitError(err: GitError): string {
  return `git error: ${err.code}${err.field ? ` (${err.field})` : ''}: ${err.message}`
}

async function fetchGitContent(config: GitContentConfig, ctx: FetchContext): Promise<Fetched> {
  const credentials = await credentialsOf(config, ctx)
  const timeoutMs = parseGoDuration(config.timeout) ?? 60_000
  try {
    const repo = await ctx.gate.run(
      () => mirror(config.url, credentials, { dataDir: ctx.dataDir, timeoutMs }),
      ctx.signal,
    )
    const commit = (
      await resolveReference(repo, config.commit ?? config.reference, config.commit ? 'commit' : 'reference')
    ).commit
    const tree = await readTree(repo, commit, config.path ?? '', {
      include: (file) => CONTENT_FILE.test(file),
      binary: 'skip',
      maxTotalBytes: ctx.maxBytes,
    })
    const content: Record<string, unknown> = {}
    let size = 0
    for (const file of Object.keys(tree.files).sort()) {
      const text = tree.files[file]!
      const bytes = new TextEncoder().encode(text)
      size += bytes.byteLength
      const document = decodeContent(bytes, formatOf(undefined, file), file, ctx.maxYamlNodes)
      const segments = file.replace(CONTENT_FILE, '').split('/')
      try {
        placeAt(content, segments, document, file)
      } catch (err) {
        if (err instanceof DataConflictError) throw new RunError(`merge error: ${err.message}`)
        throw err
      }
    }
    return { content, size }
  } catch (err) {
    if (err instanceof GitError) throw new RunError(describeGitError(err))
    throw err
  }
}

/** The `git/content` category. */
export const gitContentCategory = defineCategory({
  category: 'git/content',
  schema,
  mode: 'poll',
  fetch: fetchGitContent,
  timeoutMs: (config) => {
    // Fetch and read are separate git commands, each bounded by `timeout`; the run gets both.
    const each = parseGoDuration(config.timeout) ?? 60_000
    return 2 * each
  },
})
