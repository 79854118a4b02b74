/**
 * State files (databases, buffers, last-good bundles) are private to the process's user: they
 * hold the agent-token key, decisions with their inputs and signed bundles. Every folder regent
 * creates for state is 0700 and every state file 0600, whatever the process umask; folders and
 * files that already exist are left as they are but reported when they are wider, so an operator
 * sees a world-readable database in the log instead of finding out later.
 *
 * SQLite creates `-wal`, `-shm` and `-journal` beside a database with the mode of the database
 * file itself, so creating the database file 0600 before SQLite opens it (`createPrivateFile`)
 * is enough for all of them; worker threads cannot change the umask, so that is the only way
 * that works on the decision-log buffer's thread too.
 */
import {
  chmodSync,
  closeSync,
  constants,
  fchmodSync,
  mkdirSync,
  openSync,
  readdirSync,
  statSync,
  writeFileSync,
} from 'node:fs'
import { mkdir } from 'node:fs/promises'
import { dirname, join, resolve } from 'node:path'
import type { Logger } from 'pino'

/** Mode of a folder regent creates for state. */
export const PRIVATE_DIR_MODE = 0o700
/** Mode of a state file regent creates. */
export const PRIVATE_FILE_MODE = 0o600

/** Entries `warnOnSharedModes` looks at in one folder tree; state folders hold a handful. */
const MAX_CHECKED_ENTRIES = 1000

/** Creates `dir` (and missing parents) 0700; an existing folder keeps its mode. */
export function makePrivateDir(dir: string): void {
  const first = mkdirSync(dir, { recursive: true, mode: PRIVATE_DIR_MODE })
  // mkdir's mode is masked by the umask; 0700 masked is at most 0700, but a umask such as
  // 0o200 could leave it unwritable to its owner, so the folders made here are set exactly.
  if (first !== undefined) chmodCreated(first, dir)
}

/** The asynchronous form of `makePrivateDir`. */
export async function makePrivateDirAsync(dir: string): Promise<void> {
  const first = await mkdir(dir, { recursive: true, mode: PRIVATE_DIR_MODE })
  if (first !== undefined) chmodCreated(first, dir)
}

function chmodCreated(first: string, last: string): void {
  // Every folder from `first` down to `last` was created by this call.
  let path = resolve(last)
  const top = resolve(first)
  for (;;) {
    chmodSync(path, PRIVATE_DIR_MODE)
    if (path === top || path.length <= top.length) return
    path = dirname(path)
  }
}

/**
 * Creates `file` empty with mode 0600 when it does not exist (an existing file is untouched):
 * call it before SQLite opens a database so the database and its -wal/-shm files are private.
 */
export function createPrivateFile(file: string): void {
  let fd: number
  try {
    fd = openSync(file, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, PRIVATE_FILE_MODE)
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === 'EEXIST') return
    throw err
  }
  try {
    // The umask may have taken bits away (never added any); set exactly 0600.
    chmodSync(file, PRIVATE_FILE_MODE)
  } finally {
    closeSync(fd)
  }
}

/** Writes a new state file (a generated key or token) 0600; an existing file is refused (EEXIST). */
export function writeNewPrivateFile(file: string, data: string | Uint8Array): void {
  const fd = openSync(file, constants.O_CREAT | constants.O_EXCL | constants.O_WRONLY, PRIVATE_FILE_MODE)
  try {
    fchmodSync(fd, PRIVATE_FILE_MODE)
    writeFileSync(fd, data)
  } finally {
    closeSync(fd)
  }
}

/** A state path whose permissions let others than its owner in. */
export interface SharedPath {
  path: string
  /** Permission bits in octal, e.g. `0644`. */
  mode: string
  /** What it should be: `0700` for a folder, `0600` for a file. */
  expected: string
}

/**
 * The paths at and below `root` (at `root` only without `descend`) that group or others may
 * read, write or enter (folders wider than 0700, files wider than 0600). Missing paths are not
 * reported; at most 1000 entries are looked at.
 */
export function sharedStatePaths(root: string, descend = true): SharedPath[] {
  const found: SharedPath[] = []
  const queue = [root]
  let seen = 0
  while (queue.length > 0 && seen < MAX_CHECKED_ENTRIES) {
    const path = queue.shift()!
    seen++
    let stat: ReturnType<typeof statSync>
    try {
      stat = statSync(path)
    } catch {
      continue
    }
    const bits = stat.mode & 0o777
    if (bits & 0o077) {
      const mode = `0${bits.toString(8).padStart(3, '0')}`
      found.push({ path, mode, expected: stat.isDirectory() ? '0700' : '0600' })
    }
    if (!descend || !stat.isDirectory()) continue
    try {
      for (const entry of readdirSync(path)) queue.push(join(path, entry))
    } catch {
      // An unreadable folder is reported by whoever needs it.
    }
  }
  return found
}

/**
 * Logs one warning per state path under `roots` that others than the owner may access (one
 * line naming the path and its mode). Call once at start, after the state was opened; with
 * `descend: false` only the roots themselves are looked at (a database in a shared folder).
 */
export function warnOnSharedModes(
  roots: readonly string[],
  logger: Logger,
  options: { descend?: boolean } = {},
): void {
  for (const root of new Set(roots)) {
    for (const shared of sharedStatePaths(root, options.descend ?? true)) {
      logger.warn(shared, 'state path is accessible to other users; restrict it (chmod go-rwx)')
    }
  }
}
