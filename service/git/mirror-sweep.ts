/**
 * Removes the mirrors no configuration uses any more (a system deleted or pointed elsewhere, a git
 * datasource deleted): without it every URL ever configured would stay on disk for good.
 *
 * A mirror is removed only under its lock (so never while a fetch, a clone or a commit's push runs
 * on it), only when the configurations read again under that lock still do not use it (one created
 * meanwhile keeps it), and only when this process has not handed it out within `graceMs` (an
 * operation reads the mirror after `mirror()` returns, outside the lock: verify-config of a URL
 * that no configuration names yet, a read racing a system's deletion).
 */
import { readdir, rm } from 'node:fs/promises'
import { join } from 'node:path'
import { mirrorFolderName, mirrorLastOpened, mirrorLocks, mirrorsRoot } from './mirror.js'
import { parseRemoteUrl } from './remote-url.js'

/** Longer than any operation's few git commands take between `mirror()` and its last read. */
export const DEFAULT_SWEEP_GRACE_MS = 10 * 60_000

const MIRROR_ENTRY = /^([0-9a-f]{32})(?:\.tmp-[0-9a-f]+)?$/

export interface SweepOptions {
  dataDir: string
  /** The URLs every configuration uses now (read again before each removal). */
  urlsInUse: () => Promise<Iterable<string>>
  /** Mirrors handed out in this process within this many ms stay. */
  graceMs?: number
}

/** Removes unused mirrors; resolves to the folder names removed. */
export async function sweepMirrors(options: SweepOptions): Promise<string[]> {
  const root = mirrorsRoot(options.dataDir)
  const graceMs = options.graceMs ?? DEFAULT_SWEEP_GRACE_MS
  const entries = await readdir(root).catch((err: NodeJS.ErrnoException) => {
    if (err.code === 'ENOENT') return [] as string[]
    throw err
  })
  // A clone in progress lives in `<name>.tmp-<random>` until renamed: it belongs to `<name>`.
  const byMirror = new Map<string, string[]>()
  for (const entry of entries) {
    const name = MIRROR_ENTRY.exec(entry)?.[1]
    // Only what mirror() creates is ours to remove; anything else put there is left alone.
    if (name === undefined) continue
    byMirror.set(name, [...(byMirror.get(name) ?? []), entry])
  }
  const recentlyOpened = (path: string) => Date.now() - (mirrorLastOpened.get(path) ?? 0) < graceMs
  let inUse = folderNamesOf(await options.urlsInUse())
  const removed: string[] = []
  for (const [name, folders] of byMirror) {
    const path = join(root, name)
    if (inUse.has(name) || recentlyOpened(path)) continue
    await mirrorLocks.run(path, async () => {
      inUse = folderNamesOf(await options.urlsInUse())
      if (inUse.has(name) || recentlyOpened(path)) return
      for (const folder of folders) await rm(join(root, folder), { recursive: true, force: true })
      mirrorLastOpened.delete(path)
      removed.push(name)
    })
  }
  return removed
}

/** The mirror folder names of `urls`; a URL the git layer refuses has no mirror. */
function folderNamesOf(urls: Iterable<string>): Set<string> {
  const names = new Set<string>()
  for (const url of urls) {
    try {
      names.add(mirrorFolderName(parseRemoteUrl(url).url))
    } catch {
      // Refused by the git layer: never fetched, so nothing on disk to keep.
    }
  }
  return names
}
