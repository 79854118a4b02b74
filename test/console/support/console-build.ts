/**
 * The console built once for the test run, into a cache folder named after a hash of its sources
 * (and the lock file), so test files share one build and a changed source builds anew. Built into
 * a temporary folder and renamed into place, so a concurrent test file never sees half a build.
 */
import { createHash } from 'node:crypto'
import { existsSync, mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync } from 'node:fs'
import { join } from 'node:path'
import { fileURLToPath } from 'node:url'

const ROOT = fileURLToPath(new URL('../../..', import.meta.url))
const CONSOLE = join(ROOT, 'console')

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name)
    return statSync(path).isDirectory() ? sourceFiles(path) : [path]
  })
}

function sourceHash(): string {
  const hash = createHash('sha256')
  // Names the build's mode, so a cached build from before it was forced to production is not reused.
  hash.update('production')
  for (const file of [...sourceFiles(CONSOLE), join(ROOT, 'package-lock.json')].sort()) {
    hash.update(file.slice(ROOT.length))
    hash.update(readFileSync(file))
  }
  return hash.digest('hex').slice(0, 16)
}

/** The folder of a build of the current sources (built now if no test built it yet). */
export async function builtConsole(): Promise<string> {
  const cache = join(ROOT, 'node_modules', '.cache', 'regent-console')
  const dir = join(cache, sourceHash())
  if (existsSync(join(dir, 'index.html'))) return dir
  mkdirSync(cache, { recursive: true })
  const temp = `${dir}.${process.pid}.${Date.now()}`
  const { build } = await import('vite')
  const previous = process.env.REGENT_CONSOLE_OUT
  const previousEnv = process.env.NODE_ENV
  process.env.REGENT_CONSOLE_OUT = temp
  // NOTE(C1): Vitest sets NODE_ENV=test, and Vite then builds a development bundle (the Preact
  // preset adds preact/debug, about 30 KB more). Tests and the bench must see what
  // `npm run build` ships, whichever process builds first.
  process.env.NODE_ENV = 'production'
  try {
    await build({ configFile: join(CONSOLE, 'vite.config.ts'), logLevel: 'warn', mode: 'production' })
  } finally {
    if (previous === undefined) delete process.env.REGENT_CONSOLE_OUT
    else process.env.REGENT_CONSOLE_OUT = previous
    if (previousEnv === undefined) delete process.env.NODE_ENV
    else process.env.NODE_ENV = previousEnv
  }
  try {
    renameSync(temp, dir)
  } catch (err) {
    // Another test file finished the same build first: use theirs.
    rmSync(temp, { recursive: true, force: true })
    if (!existsSync(join(dir, 'index.html'))) throw err
  }
  return dir
}
