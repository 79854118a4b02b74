/**
 * Writes pulled libraries into a folder (one subfolder per library, the modules at their file
 * names) without ever losing a local edit: a state file (`.regent-pull.json`) records the sha256
 * of every file as last pulled. A file whose content is neither what the pull brings nor what the
 * last pull wrote was changed here (or was never pulled): it is a conflict, and unless forced
 * nothing at all is written. Files of the last pull that the service no longer has are removed
 * when unchanged. Names from the service are untrusted: ids and module paths that could leave the
 * folder are refused.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { dirname, join, relative, resolve, sep } from 'node:path'
import { CommandError } from './commands/sign.js'

/** The state file, inside the libraries folder. */
export const PULL_STATE_FILE = '.regent-pull.json'

/** One library as the service answers it. */
export interface PulledLibrary {
  id: string
  modules: Record<string, string>
}

/** What a pull did (or, with conflicts and no force, would have done). */
export interface PullPlan {
  /** Relative paths (`<library>/<file>`) written (new or changed). */
  written: string[]
  /** Relative paths removed (of the last pull, gone from the service, unchanged here). */
  removed: string[]
  /** Relative paths changed here that the pull would overwrite or remove. */
  conflicts: string[]
  unchanged: number
}

const LIBRARY_ID = /^[A-Za-z_][A-Za-z0-9_]{0,63}$/

const sha256 = (text: string | Buffer) => createHash('sha256').update(text).digest('hex')

/** The relative file path of a module, checked. @throws CommandError for a path that could escape. */
function modulePath(library: string, file: string): string {
  if (!LIBRARY_ID.test(library))
    throw new CommandError(`the service sent a library id that is not a name: "${library}"`)
  const segments = file.split('/')
  if (
    !file.endsWith('.rego') ||
    file.includes('\\') ||
    /[\u0000-\u001f]/.test(file) ||
    segments.some((s) => s === '' || s === '.' || s === '..')
  )
    throw new CommandError(
      `library ${library}: the service sent a module path regent will not write: "${file}"`,
    )
  return `${library}/${file}`
}

function readState(dir: string): Record<string, string> {
  const file = join(dir, PULL_STATE_FILE)
  if (!existsSync(file)) return {}
  try {
    const parsed = JSON.parse(readFileSync(file, 'utf8')) as { files?: Record<string, string> }
    return parsed.files ?? {}
  } catch {
    throw new CommandError(`${file} is not the state regent pull writes: remove it and pull with -f`)
  }
}

function currentHash(path: string): string | undefined {
  return existsSync(path) ? sha256(readFileSync(path)) : undefined
}

/**
 * Brings `dir` to `libraries`. With conflicts and no `force`, writes nothing and returns the plan
 * (the caller reports the conflicts); otherwise writes and returns what it did.
 */
export function writeLibraries(dir: string, libraries: readonly PulledLibrary[], force: boolean): PullPlan {
  const root = resolve(dir)
  const inside = (rel: string) => {
    const path = resolve(root, rel)
    if (relative(root, path).startsWith(`..${sep}`)) throw new CommandError(`"${rel}" would leave ${dir}`)
    return path
  }
  const state = readState(root)
  const wanted = new Map<string, string>()
  for (const library of libraries)
    for (const [file, source] of Object.entries(library.modules))
      wanted.set(modulePath(library.id, file), source)
  const plan: PullPlan = { written: [], removed: [], conflicts: [], unchanged: 0 }
  for (const [rel, source] of wanted) {
    const now = currentHash(inside(rel))
    const next = sha256(source)
    if (now === next) plan.unchanged++
    else {
      if (now !== undefined && state[rel] !== now) plan.conflicts.push(rel)
      plan.written.push(rel)
    }
  }
  for (const [rel, pulled] of Object.entries(state)) {
    if (wanted.has(rel)) continue
    const now = currentHash(inside(rel))
    if (now === undefined) continue
    if (now !== pulled) plan.conflicts.push(rel)
    plan.removed.push(rel)
  }
  if (plan.conflicts.length > 0 && !force) return plan
  for (const rel of plan.written) {
    const path = inside(rel)
    mkdirSync(dirname(path), { recursive: true })
    writeFileSync(path, wanted.get(rel)!)
  }
  for (const rel of plan.removed) rmSync(inside(rel), { force: true })
  const files = Object.fromEntries([...wanted].map(([rel, source]) => [rel, sha256(source)]))
  mkdirSync(root, { recursive: true })
  writeFileSync(join(root, PULL_STATE_FILE), `${JSON.stringify({ files }, null, 2)}\n`)
  return plan
}
