/**
 * Category `git/blame`: a blame index of the files of a repository at `commit` (or
 * `reference`): for each file whose path matches `path_regexp` (the whole path, default `.*`),
 * the line ranges and who last changed them: `{"<path>": [{start, end, commit, author, email,
 * time}]}`, ranges in line order, adjacent lines of one commit merged. Read with `git blame
 * --porcelain` inside the mirror (no checkout); the remote is asked once per run (the fetch).
 */
import { z } from 'zod'
import { GitError, type GitMirror } from '../git/index.js'
import { describeGitError, gitRunTimeoutMs, openRepository } from './git-source.js'
import { bothOrNeitherFilter, common, gitCommon, poller, rateLimiter, regoFiltering } from './mixins.js'
import { defineCategory, type FetchContext, type Fetched, RunError } from './types.js'

const validRegexp = z.string({ error: 'expected a string' }).refine(
  (pattern) => {
    try {
      new RegExp(pattern)
      return true
    } catch {
      return false
    }
  },
  { error: 'expected a regular expression' },
)

const schema = z
  .strictObject({
    category: z.literal('git/blame'),
    ...common,
    ...poller,
    ...rateLimiter,
    ...regoFiltering,
    ...gitCommon,
    path_regexp: validRegexp.default('.*'),
  })
  .superRefine(bothOrNeitherFilter)

/** Files blamed in one run at most (each is one git command). */
export const MAX_BLAMED_FILES = 2000

/** One range of lines last changed by one commit. */
export interface BlameRange {
  start: number
  end: number
  commit: string
  author: string
  email: string
  /** ISO-8601 (UTC) author time. */
  time: string
}

/**
 * The ranges of `git blame --porcelain` output.
 * @example parseBlame('<sha> 1 1 2\nauthor A\nauthor-mail <a@x>\nauthor-time 0\n\tline\n…')
 */
export function parseBlame(porcelain: string): BlameRange[] {
  const authors = new Map<string, { author: string; email: string; time: string }>()
  const ranges: BlameRange[] = []
  let current: { commit: string; line: number } | undefined
  const pending = new Map<string, { author?: string; email?: string; time?: string }>()
  for (const line of porcelain.split('\n')) {
    const header = /^([0-9a-f]{40,64}) \d+ (\d+)(?: \d+)?$/.exec(line)
    if (header) {
      current = { commit: header[1]!, line: Number(header[2]) }
      if (!authors.has(current.commit) && !pending.has(current.commit)) pending.set(current.commit, {})
      continue
    }
    if (!current) continue
    const info = pending.get(current.commit)
    if (info && line.startsWith('author ')) info.author = line.slice(7)
    else if (info && line.startsWith('author-mail ')) info.email = line.slice(12).replace(/^<|>$/g, '')
    else if (info && line.startsWith('author-time '))
      info.time = new Date(Number(line.slice(12)) * 1000).toISOString()
    else if (line.startsWith('\t')) {
      // The content line closes the entry of one line.
      if (info) {
        authors.set(current.commit, {
          author: info.author ?? '',
          email: info.email ?? '',
          time: info.time ?? '',
        })
        pending.delete(current.commit)
      }
      const who = authors.get(current.commit)!
      const last = ranges.at(-1)
      if (last && last.commit === current.commit && last.end === current.line - 1) last.end = current.line
      else ranges.push({ start: current.line, end: current.line, commit: current.commit, ...who })
    }
  }
  return ranges
}

async function blame(repo: GitMirror, commit: string, file: string): Promise<BlameRange[]> {
  const { stdout } = await repo.local(['blame', '--porcelain', commit, '--', file], {}, 'blame')
  return parseBlame(stdout.toString('utf8'))
}

async function fetchGitBlame(config: z.output<typeof schema>, ctx: FetchContext): Promise<Fetched> {
  try {
    const { repo, commit } = await openRepository(config, ctx)
    const matcher = new RegExp(`^(?:${config.path_regexp})$`)
    const { stdout } = await repo.local(['ls-tree', '-r', '-z', '--name-only', commit], {}, 'ls-tree')
    const files = stdout
      .toString('utf8')
      .split('\0')
      .filter((f) => f !== '' && matcher.test(f))
      .sort()
    if (files.length > MAX_BLAMED_FILES)
      throw new RunError(
        `size limit: ${files.length} files match path_regexp; at most ${MAX_BLAMED_FILES} are blamed per run`,
      )
    const content: Record<string, BlameRange[]> = {}
    let size = 0
    for (const file of files) {
      if (ctx.signal.aborted) throw new RunError('timeout: the run took longer than allowed')
      content[file] = await blame(repo, commit, file)
      size += JSON.stringify(content[file]).length
      if (size > ctx.maxBytes) throw new RunError(`size limit: the blame index exceeds ${ctx.maxBytes} bytes`)
    }
    return { content, size }
  } catch (err) {
    if (err instanceof GitError) throw new RunError(describeGitError(err))
    throw err
  }
}

/** The `git/blame` category. */
export const gitBlameCategory = defineCategory({
  category: 'git/blame',
  schema,
  mode: 'poll',
  fetch: fetchGitBlame,
  timeoutMs: gitRunTimeoutMs,
})
