/**
 * Runs the shared real-world corpus (`../shared/realworld/run.sh`: public policy libraries with
 * their own `*_test.rego` suites, green under OPA in their CI) with this checkout's `regent`, and
 * reads back its per-library counts. The corpus is data outside the repository: read from there,
 * never copied in.
 */
import { spawn } from 'node:child_process'
import { existsSync } from 'node:fs'
import { join, resolve } from 'node:path'
import { fileURLToPath } from 'node:url'

/** The project root: run.sh resolves `node bin/regent.js` against the directory it starts in. */
export const PROJECT_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)))

/** Where the corpus lives unless REGENT_REALWORLD_DIR says otherwise (beside the checkout). */
export const DEFAULT_FOLDER = join(PROJECT_ROOT, '..', 'shared', 'realworld')

/** One library's line of run.sh's output. */
export interface LibraryResult {
  name: string
  passed: number
  failed: number
  invocations: number
  seconds: number
}

/** The whole run: one entry per library, and the totals run.sh prints last. */
export interface RealworldResult {
  libraries: LibraryResult[]
  passed: number
  failed: number
}

const LIBRARY_LINE = /^(\S+): (\d+) passed, (\d+) failed \(\d+ tests, (\d+) invocations, ([\d.]+) s\)$/
const TOTAL_LINE = /^(\d+) passed, (\d+) failed$/

/**
 * Reads run.sh's output. Throws when the totals line is missing, so a crashed or changed script
 * is an error rather than a silent "0 passed".
 */
export function parseRunOutput(text: string): RealworldResult {
  const libraries: LibraryResult[] = []
  let totals: { passed: number; failed: number } | undefined
  for (const line of text.split('\n')) {
    const lib = LIBRARY_LINE.exec(line.trim())
    if (lib) {
      libraries.push({
        name: lib[1] as string,
        passed: Number(lib[2]),
        failed: Number(lib[3]),
        invocations: Number(lib[4]),
        seconds: Number(lib[5]),
      })
      continue
    }
    const total = TOTAL_LINE.exec(line.trim())
    if (total) totals = { passed: Number(total[1]), failed: Number(total[2]) }
  }
  if (!totals) throw new Error(`realworld: no "N passed, M failed" line in run.sh's output:\n${text}`)
  return { libraries, ...totals }
}

/** True when the corpus (its run.sh) is present at `folder`. */
export function corpusPresent(folder: string): boolean {
  return existsSync(join(folder, 'run.sh'))
}

/**
 * Runs `bash <folder>/run.sh` from the project root (run.sh starts one `regent test` process per
 * upstream invocation). `only` narrows to libraries whose folder name contains it; `onLine`
 * receives each output line as it comes, for a live listing.
 */
export function runRealworld(
  folder: string,
  options: { only?: string; onLine?: (line: string) => void } = {},
): Promise<RealworldResult> {
  const env = { ...process.env }
  if (options.only) env.ONLY = options.only
  else delete env.ONLY
  return new Promise((resolvePromise, reject) => {
    const child = spawn('bash', [join(resolve(folder), 'run.sh')], {
      cwd: PROJECT_ROOT,
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let out = ''
    let pending = ''
    let err = ''
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => {
      out += chunk
      pending += chunk
      const lines = pending.split('\n')
      pending = lines.pop() ?? ''
      for (const line of lines) options.onLine?.(line)
    })
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => {
      err += chunk
    })
    child.on('error', reject)
    child.on('close', (code) => {
      if (pending) options.onLine?.(pending)
      if (code !== 0) {
        reject(new Error(`realworld: run.sh exited with ${code}\n${err}`))
        return
      }
      try {
        resolvePromise(parseRunOutput(out))
      } catch (e) {
        reject(e)
      }
    })
  })
}
