/** Bytes used by the files under a folder (symlinks not followed), to bound a mirror on disk. */
import { lstat, readdir } from 'node:fs/promises'
import { join } from 'node:path'

export async function dirSize(root: string): Promise<number> {
  let total = 0
  const pending = [root]
  // Bounded: a mirror holds far fewer entries than this; past it the size is surely over any limit.
  for (let visited = 0; pending.length > 0 && visited < 1_000_000; visited++) {
    const dir = pending.pop()!
    let entries: import('node:fs').Dirent[]
    try {
      entries = await readdir(dir, { withFileTypes: true })
    } catch {
      continue // removed while walking (git renames temporary packs)
    }
    for (const entry of entries) {
      const path = join(dir, entry.name)
      if (entry.isDirectory()) pending.push(path)
      else if (entry.isFile()) {
        try {
          total += (await lstat(path)).size
        } catch {
          // removed while walking
        }
      }
    }
  }
  return total
}
