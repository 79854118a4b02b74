/**
 * Entry names and the role of each file. Tar names arrive as the archiver wrote them: OPA writes
 * `/data.json`, hand-made archives `data.json` or `./data.json`. All three mean the same file; a
 * name that leaves the bundle (`../x`, `//etc/passwd`, `C:\x`) is refused, never rewritten.
 */
import { posix } from 'node:path'
import { bundleError } from './errors.js'

/** What a file is to the loader, decided by its name as OPA decides it. */
export type FileRole = 'module' | 'data' | 'manifest' | 'signatures' | 'patch' | 'wasm' | 'plan' | 'other'

/** The basenames loaded as data. `data.yml` is data too, though its digest is over raw bytes. */
export const DATA_FILE_NAMES = new Set(['data.json', 'data.yaml', 'data.yml'])

/**
 * The normalised slash path of a tar or directory entry: leading `./` and one leading `/` removed,
 * `.` segments and doubled slashes removed. Any `..` segment is refused.
 * @throws BundleError `bundle_entry_unsafe` when the name escapes the bundle root.
 * @example normaliseEntryPath('/a/./b/data.json') // 'a/b/data.json'
 */
export function normaliseEntryPath(name: string): string {
  if (name.includes('\0')) throw unsafe(name, 'contains a NUL byte')
  if (name.includes('\\')) throw unsafe(name, 'contains a backslash')
  if (/^[A-Za-z]:/.test(name)) throw unsafe(name, 'is an absolute Windows path')
  let rest = name
  while (rest.startsWith('./')) rest = rest.slice(2)
  if (rest.startsWith('/')) rest = rest.slice(1)
  if (rest.startsWith('/')) throw unsafe(name, 'is an absolute path')
  if (rest.split('/').includes('..'))
    throw unsafe(name, 'has a .. segment (entries may not point outside the bundle root)')
  const clean = posix.normalize(rest).replace(/\/+$/, '')
  if (clean === '' || clean === '.') throw unsafe(name, 'has no file name')
  return clean
}

function unsafe(name: string, why: string) {
  return bundleError('bundle_entry_unsafe', `bundle entry ${JSON.stringify(name)} ${why}`)
}

/** The role of the file at a normalised path (OPA's rules: basename, `.manifest` suffix, ...). */
export function fileRole(path: string): FileRole {
  const base = posix.basename(path)
  if (path.endsWith('.rego')) return 'module'
  if (DATA_FILE_NAMES.has(base)) return 'data'
  if (path.endsWith('signatures.json')) return 'signatures'
  if (path.endsWith('.manifest')) return 'manifest'
  if (path === 'patch.json') return 'patch'
  if (path.endsWith('.wasm')) return 'wasm'
  if (base === 'plan.json') return 'plan'
  return 'other'
}

/**
 * The data path (slash-separated, '' for the root) a data file is placed at: its directory.
 * @example dataPathOf('a/b/data.json') // 'a/b'
 */
export function dataPathOf(path: string): string {
  const dir = posix.dirname(path)
  return dir === '.' ? '' : dir
}
