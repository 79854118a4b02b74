/**
 * Category `git/rego`: a `.tar.gz` bundle file in a repository, at `path` (default
 * `bundle.tar.gz`) of `commit` (or `reference`), read through the git layer like `git/content`.
 * The blob's size is checked against the run's byte limit before a byte of it is read; the
 * bundle's data becomes the datasource's document (bundle-content.ts says what is kept).
 */
import { z } from 'zod'
import { GitError, type GitMirror } from '../git/index.js'
import { bundleContent } from './bundle-content.js'
import { describeGitError, gitRunTimeoutMs, openRepository } from './git-source.js'
import { common, gitCommon, poller, rateLimiter } from './mixins.js'
import { defineCategory, type FetchContext, type Fetched, RunError } from './types.js'

const schema = z.strictObject({
  category: z.literal('git/rego'),
  ...common,
  ...poller,
  ...rateLimiter,
  ...gitCommon,
  path: z.string({ error: 'expected a string' }).optional(),
})

type GitRegoConfig = z.output<typeof schema>

/** The bundle file read when `path` names none. */
export const DEFAULT_BUNDLE_FILE = 'bundle.tar.gz'

/** `path` as a file path inside the repository, or a RunError naming the field. */
function bundleFilePath(path: string | undefined): string {
  const clean = (path ?? '').replace(/^\/+/, '').replace(/\/+$/, '')
  if (clean === '') return DEFAULT_BUNDLE_FILE
  if (clean.split('/').some((segment) => segment === '..' || segment === '.'))
    throw new RunError(`config error: path: ${JSON.stringify(path)} has a . or .. segment`)
  return clean
}

/** The bytes of the blob at `file` of `commit`, refused past `maxBytes` before they are read. */
async function readBlob(
  repo: GitMirror,
  commit: string,
  file: string,
  maxBytes: number,
): Promise<Uint8Array> {
  const listing = (await repo.local(['ls-tree', '-l', '-z', commit, '--', file], {}, 'ls-tree')).stdout
    .toString('utf8')
    .split('\u0000')
    .find((record) => record.endsWith(`\t${file}`))
  const [, type, oid, size] = listing?.slice(0, listing.indexOf('\t')).trim().split(/\s+/) ?? []
  if (listing === undefined || oid === undefined)
    throw new RunError(`git error: path_not_found (path): ${file} is not in commit ${commit}`)
  if (type !== 'blob') throw new RunError(`config error: path: ${file} is a ${type}, not a bundle file`)
  if (Number(size) > maxBytes)
    throw new RunError(`size limit: ${file} is ${size} bytes, more than ${maxBytes} bytes`)
  return (await repo.local(['cat-file', 'blob', oid], { maxOutputBytes: maxBytes + 1 }, 'cat-file')).stdout
}

async function fetchGitRego(config: GitRegoConfig, ctx: FetchContext): Promise<Fetched> {
  const file = bundleFilePath(config.path)
  try {
    const { repo, commit } = await openRepository(config, ctx)
    const bytes = await readBlob(repo, commit, file, ctx.maxBytes)
    return await bundleContent(bytes, file, ctx)
  } catch (err) {
    if (err instanceof GitError) throw new RunError(describeGitError(err))
    throw err
  }
}

/** The `git/rego` category. */
export const gitRegoCategory = defineCategory({
  category: 'git/rego',
  schema,
  mode: 'poll',
  fetch: fetchGitRego,
  timeoutMs: gitRunTimeoutMs,
})
