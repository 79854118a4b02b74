/**
 * A real, small disk for full-disk tests: a tmpfs of a few MiB mounted on a folder (root with
 * CAP_SYS_ADMIN; elsewhere the caller skips with the reason), and a filler that takes every
 * byte left on it.
 */
import { execFileSync } from 'node:child_process'
import { closeSync, openSync, writeSync } from 'node:fs'

/** Mounts a tmpfs of `size` (e.g. `2m`) on `path`; returns why not when that fails. */
export function mountSmallDisk(path: string, size = '2m'): { unmount(): void } | string {
  try {
    execFileSync('mount', ['-t', 'tmpfs', '-o', `size=${size}`, 'tmpfs', path], { stdio: 'pipe' })
  } catch (err) {
    return `mounting a ${size} tmpfs needs root with CAP_SYS_ADMIN: ${(err as Error).message.split('\n')[0]}`
  }
  return { unmount: () => execFileSync('umount', [path], { stdio: 'pipe' }) }
}

/** Writes `file` until the disk refuses even one more byte (bounded by the disk's size). */
export function fillDisk(file: string): void {
  const fd = openSync(file, 'w')
  const chunk = Buffer.alloc(16 * 1024, 1)
  try {
    for (let i = 0; i < 100_000; i++) {
      try {
        writeSync(fd, chunk)
      } catch {
        for (let size = 8192; size >= 1; size = Math.floor(size / 2)) {
          try {
            while (writeSync(fd, chunk.subarray(0, size)) > 0) {}
          } catch {}
        }
        return
      }
    }
    throw new Error('the disk did not fill up')
  } finally {
    closeSync(fd)
  }
}
