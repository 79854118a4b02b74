/**
 * Reads the text files of a commit's tree under a folder, straight from the mirror's object store
 * (no checkout): one `ls-tree` for the listing, one `cat-file --batch` for every content.
 * Limits per file, per listing and in total; binary files are refused or skipped; symlinks are
 * followed inside the folder and refused when they point outside it; submodules are skipped.
 */
import { GitError, invalidInput, pathNotFound, tooLarge } from './errors.js'
import type { GitMirror } from './mirror.js'
import { runGit } from './run-git.js'
import { normaliseTreePath, symlinkTarget } from './tree-path.js'

export interface ReadTreeOptions {
  /** Which files to read (path relative to the folder); all by default. */
  include?: (path: string) => boolean
  /** Largest file, in bytes (default 1 MiB). */
  maxFileBytes?: number
  /** Most files read (default 10 000). */
  maxFiles?: number
  /** Largest sum of file sizes (default 64 MiB). */
  maxTotalBytes?: number
  /** A file that is not UTF-8 text: fail (default) or skip it. */
  binary?: 'error' | 'skip'
}

export interface TreeFiles {
  /** Path relative to the folder → text content. */
  files: Record<string, string>
  /** Files left out, and why. */
  skipped: Array<{
    path: string
    reason: 'binary' | 'submodule' | 'dangling symlink' | 'symlink to a folder'
  }>
}

interface Entry {
  mode: string
  type: string
  oid: string
  size: number
}

const SYMLINK_HOPS = 8

function parseLsTree(out: Buffer): Map<string, Entry> {
  const entries = new Map<string, Entry>()
  for (const record of out.toString('utf8').split('\u0000')) {
    if (record === '') continue
    const tab = record.indexOf('\t')
    const [mode, type, oid, size] = record.slice(0, tab).trim().split(/\s+/)
    entries.set(record.slice(tab + 1), {
      mode: mode!,
      type: type!,
      oid: oid!,
      size: size === '-' ? 0 : Number(size),
    })
  }
  return entries
}

async function readObjects(repo: GitMirror, oids: string[]): Promise<Map<string, Buffer>> {
  const contents = new Map<string, Buffer>()
  if (oids.length === 0) return contents
  const { stdout } = await repo.local(['cat-file', '--batch'], { input: `${oids.join('\n')}\n` }, 'cat-file')
  let at = 0
  for (let i = 0; i < oids.length && at < stdout.length; i++) {
    const newline = stdout.indexOf(10, at)
    const [oid, , size] = stdout.subarray(at, newline).toString('utf8').split(' ')
    const length = Number(size)
    contents.set(oid!, stdout.subarray(newline + 1, newline + 1 + length))
    at = newline + 1 + length + 1
  }
  return contents
}

const utf8 = new TextDecoder('utf-8', { fatal: true })

/** Text, or undefined for binary content (a NUL byte near the start, as git judges, or invalid UTF-8). */
function asText(content: Buffer): string | undefined {
  if (content.subarray(0, 8000).includes(0)) return undefined
  try {
    return utf8.decode(content)
  } catch {
    return undefined
  }
}

export async function readTree(
  repo: GitMirror,
  commit: string,
  path: string,
  options: ReadTreeOptions = {},
): Promise<TreeFiles> {
  // The commit comes from resolveReference; checking its shape keeps anything else (an option,
  // a revision expression) from reaching git.
  if (!/^(?:[0-9a-f]{40}|[0-9a-f]{64})$/.test(commit))
    throw invalidInput(
      'commit',
      `commit ${JSON.stringify(commit)} is not a commit SHA; resolve the reference first`,
    )
  const folder = normaliseTreePath(path)
  const maxFileBytes = options.maxFileBytes ?? 1024 * 1024
  const maxFiles = options.maxFiles ?? 10_000
  const maxTotalBytes = options.maxTotalBytes ?? 64 * 1024 * 1024
  const treeish = folder === '' ? `${commit}^{tree}` : `${commit}:${folder}`
  const kind = await runGit(['cat-file', '-t', treeish], { cwd: repo.path, timeoutMs: repo.timeoutMs })
  if (kind.code !== 0) throw pathNotFound(path)
  if (kind.stdout.toString('utf8').trim() !== 'tree')
    throw invalidInput('path', `path ${JSON.stringify(path)} is a file, not a folder`)
  const { stdout } = await repo.local(['ls-tree', '-r', '-z', '--long', treeish], {}, 'ls-tree')
  const entries = parseLsTree(stdout)

  const result: TreeFiles = { files: {}, skipped: [] }
  const chosen = new Map<string, Entry>() // listed path → the blob it reads
  const links = [...entries].filter(([, e]) => e.mode === '120000')
  const linkTargets = await readObjects(
    repo,
    links.map(([, e]) => e.oid),
  )
  for (const [name, entry] of entries) {
    if (options.include && !options.include(name)) continue
    if (entry.type === 'commit') {
      result.skipped.push({ path: name, reason: 'submodule' })
      continue
    }
    let current = name
    let target: Entry | undefined = entry
    for (let hop = 0; target?.mode === '120000'; hop++) {
      const next = symlinkTarget(current, linkTargets.get(target.oid)?.toString('utf8') ?? '')
      if (next === undefined || hop >= SYMLINK_HOPS)
        throw invalidInput(
          'path',
          `symlink ${JSON.stringify(name)} points outside ${JSON.stringify(path || '/')} or loops`,
        )
      current = next
      target = entries.get(next)
    }
    if (target === undefined) {
      const isFolder = [...entries.keys()].some((p) => p.startsWith(`${current}/`))
      result.skipped.push({ path: name, reason: isFolder ? 'symlink to a folder' : 'dangling symlink' })
      continue
    }
    if (target.size > maxFileBytes)
      throw tooLarge(
        `file ${JSON.stringify(name)} has ${target.size} bytes, over the limit of ${maxFileBytes}`,
        'path',
      )
    chosen.set(name, target)
    if (chosen.size > maxFiles)
      throw tooLarge(`more than ${maxFiles} files under ${JSON.stringify(path || '/')}`, 'path')
  }
  const total = [...chosen.values()].reduce((sum, e) => sum + e.size, 0)
  if (total > maxTotalBytes)
    throw tooLarge(
      `files under ${JSON.stringify(path || '/')} take ${total} bytes, over the limit of ${maxTotalBytes}`,
      'path',
    )

  const contents = await readObjects(repo, [...new Set([...chosen.values()].map((e) => e.oid))])
  for (const [name, entry] of chosen) {
    const text = asText(contents.get(entry.oid) ?? Buffer.alloc(0))
    if (text !== undefined) result.files[name] = text
    else if (options.binary === 'skip') result.skipped.push({ path: name, reason: 'binary' })
    else throw new GitError('invalid_input', `file ${JSON.stringify(name)} is binary, not text`, 'path')
  }
  return result
}
