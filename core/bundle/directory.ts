/**
 * Loading a bundle from a directory tree. Paths are relative to the directory with `/`
 * separators, walked in sorted order so a directory and its tarball give the same bundle.
 * Symbolic links are skipped unless `followSymlinks` (as `opa build --follow-symlinks`), and then
 * a link cycle is cut; sockets, fifos and devices are always skipped.
 */
import type { Dirent, Stats } from 'node:fs'
import { readdir, readFile, realpath, stat } from 'node:fs/promises'
import { join } from 'node:path'
import { bundleError, reason } from './errors.js'
import { globMatch } from './glob.js'
import type { BundleEntry } from './types.js'

/** Options for walking a bundle directory. */
export interface DirectoryOptions {
  sizeLimitBytes: number
  maxEntries: number
  /** Basename globs to skip (files and directories), as `--ignore`. */
  ignore?: string[]
  followSymlinks?: boolean
}

/**
 * The regular files under `dir` as bundle entries.
 * @throws BundleError `bundle_not_found` when `dir` is missing, size and count errors naming the file.
 */
export async function loadDirectory(dir: string, options: DirectoryOptions): Promise<BundleEntry[]> {
  let root: Stats
  try {
    root = await stat(dir)
  } catch (err) {
    throw bundleError('bundle_not_found', `bundle directory ${dir} cannot be read: ${reason(err)}`, err)
  }
  if (!root.isDirectory()) throw bundleError('bundle_not_found', `bundle path ${dir} is not a directory`)
  const entries: BundleEntry[] = []
  const visited = new Set<string>([await realpath(dir)])
  await walk(dir, '', options, entries, visited)
  return entries
}

async function walk(
  dir: string,
  prefix: string,
  options: DirectoryOptions,
  out: BundleEntry[],
  visited: Set<string>,
): Promise<void> {
  let children: Dirent[]
  try {
    children = await readdir(dir, { withFileTypes: true })
  } catch (err) {
    throw bundleError('bundle_not_found', `bundle directory ${dir} cannot be read: ${reason(err)}`, err)
  }
  children.sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0))
  for (const child of children) {
    if (options.ignore?.some((pattern) => globMatch(pattern, child.name))) continue
    const full = join(dir, child.name)
    const path = prefix === '' ? child.name : `${prefix}/${child.name}`
    let kind: 'file' | 'dir' | 'skip' = child.isFile() ? 'file' : child.isDirectory() ? 'dir' : 'skip'
    if (child.isSymbolicLink() && options.followSymlinks) {
      const target = await stat(full).catch(() => undefined)
      kind = target?.isFile() ? 'file' : target?.isDirectory() ? 'dir' : 'skip'
      if (kind === 'dir') {
        const real = await realpath(full)
        if (visited.has(real)) continue
        visited.add(real)
      }
    }
    if (kind === 'dir') await walk(full, path, options, out, visited)
    else if (kind === 'file') {
      if (out.length >= options.maxEntries) {
        throw bundleError(
          'bundle_entry_limit',
          `bundle directory ${dir} has more than ${options.maxEntries} files`,
        )
      }
      const info = await stat(full)
      if (info.size > options.sizeLimitBytes) {
        throw bundleError(
          'bundle_size_limit',
          `bundle file ${JSON.stringify(path)} exceeds the size limit of ${options.sizeLimitBytes} bytes`,
        )
      }
      out.push({ path, raw: await readFile(full) })
    }
  }
}
