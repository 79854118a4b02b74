/**
 * A real read-only folder for tests, also when they run as root (whom permission bits do not
 * stop): mode 0555 when that refuses writes, else a read-only tmpfs mounted on it (root with
 * CAP_SYS_ADMIN), else none, with the reason (the caller skips and says why).
 */
import { execFileSync } from 'node:child_process'
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'

export interface ReadOnlyFolder {
  path: string
  /** How it was made read-only, for test names and messages. */
  how: string
  /** Makes it writable again (chmod back, or unmount). */
  release(): void
}

function refusesWrites(path: string): boolean {
  try {
    writeFileSync(join(path, '.probe'), 'x')
    rmSync(join(path, '.probe'))
    return false
  } catch {
    return true
  }
}

/** Creates `path` and makes it read-only; a string says why that is not possible here. */
export function makeReadOnlyFolder(path: string): ReadOnlyFolder | string {
  mkdirSync(path, { recursive: true })
  chmodSync(path, 0o555)
  if (refusesWrites(path)) return { path, how: 'mode 0555', release: () => chmodSync(path, 0o755) }
  chmodSync(path, 0o755)
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', 'ro,size=64k', 'tmpfs', path], { stdio: 'pipe' })
  } catch (err) {
    return `running as root, and mounting a read-only tmpfs failed: ${(err as Error).message.split('\n')[0]}`
  }
  if (!refusesWrites(path)) {
    execFileSync('umount', [path])
    return 'a read-only tmpfs mount still accepted writes'
  }
  return {
    path,
    how: 'read-only tmpfs mount',
    release: () => execFileSync('umount', [path], { stdio: 'pipe' }),
  }
}
