/**
 * Paths inside a repository, as users give them (`policies/`, `/`, ``) and as trees hold them.
 * A path never leaves the repository: no `..` segment, no absolute path other than the root.
 */
import { posix } from 'node:path'
import { invalidInput } from './errors.js'

/** The repository-relative folder a user named, without leading or trailing slash; '' for the root. */
export function normaliseTreePath(path: string, field = 'path'): string {
  if (path.includes('\u0000')) throw invalidInput(field, `path ${JSON.stringify(path)} contains a NUL byte`)
  const trimmed = path.trim()
  if (trimmed === '' || trimmed === '.' || trimmed === '/' || trimmed === './') return ''
  if (trimmed.startsWith('/'))
    throw invalidInput(
      field,
      `path ${JSON.stringify(path)} is absolute; give it relative to the repository root`,
    )
  const parts = trimmed.split('/').filter((p) => p !== '' && p !== '.')
  if (parts.some((p) => p === '..'))
    throw invalidInput(field, `path ${JSON.stringify(path)} leaves the repository`)
  return parts.join('/')
}

/** A file path to write or delete, relative to the repository root; refused if it could escape. */
export function checkFilePath(path: string, field: string): string {
  const normalised = normaliseTreePath(path, field)
  if (normalised === '' || normalised.split('/').includes('.git'))
    throw invalidInput(field, `file path ${JSON.stringify(path)} is not a file inside the repository`)
  return normalised
}

/**
 * Where a symlink at `linkPath` (relative to the listed root) points, relative to the same root;
 * undefined when the target leaves the root.
 */
export function symlinkTarget(linkPath: string, target: string): string | undefined {
  if (target.startsWith('/')) return undefined
  const joined = posix.normalize(posix.join(posix.dirname(linkPath), target))
  if (joined === '..' || joined.startsWith('../') || joined.startsWith('/')) return undefined
  return joined
}
