/**
 * Category `git/content`: the `.json`, `.yaml`/`.yml` and `.xml` files under `path` of a
 * repository at `commit` (or `reference`, default `refs/heads/master`), read through the git
 * layer (service/git/: a bare mirror in the data folder, fetched incrementally, no checkout).
 * Each file's document is placed at its path relative to `path`, without the extension
 * (`teams/red.yaml` → `{teams: {red: …}}`), so files merge into one tree by their paths.
 * Credentials as for systems' git origins (see git-source.ts).
 */
import { z } from 'zod'
import { DataConflictError, placeAt } from '../data-tree.js'
import { GitError, readTree } from '../git/index.js'
import { formatOf } from './decode.js'
import { decodeDocument } from './decode-off-thread.js'
import { describeGitError, gitRunTimeoutMs, openRepository } from './git-source.js'
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

async function fetchGitContent(config: GitContentConfig, ctx: FetchContext): Promise<Fetched> {
  try {
    const { repo, commit } = await openRepository(config, ctx)
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
      const document = await decodeDocument(bytes, formatOf(undefined, file), file, ctx.maxYamlNodes, {
        signal: ctx.signal,
      })
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
  timeoutMs: gitRunTimeoutMs,
})
