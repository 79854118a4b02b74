/**
 * `regent test -w`: runs the tests, then again each time a file under the paths changes, until
 * interrupted. Changes are debounced (editors write a file in several steps) and a run never
 * overlaps the previous one: a change during a run triggers one more run after it.
 */
import { type FSWatcher, statSync, watch } from 'node:fs'
import { dirname } from 'node:path'

/** Quiet time after the last change before a run starts. */
export const WATCH_DEBOUNCE_MS = 150

/** Runs `run` now and after every change under `paths`; resolves when SIGINT or SIGTERM arrives. */
export async function watchAndRun(paths: string[], run: () => Promise<void>): Promise<void> {
  let running = false
  let again = false
  let timer: NodeJS.Timeout | undefined
  const cycle = async (): Promise<void> => {
    if (running) {
      again = true
      return
    }
    running = true
    try {
      await run()
    } catch (err) {
      process.stderr.write(`${(err as Error).message}\n`)
    } finally {
      running = false
    }
    process.stdout.write(`\nWatching for changes under ${paths.join(', ')} (Ctrl+C to stop)\n`)
    if (again) {
      again = false
      await cycle()
    }
  }
  const changed = () => {
    clearTimeout(timer)
    timer = setTimeout(() => void cycle(), WATCH_DEBOUNCE_MS)
  }
  const watchers: FSWatcher[] = []
  for (const path of paths) {
    const target = isDirectory(path) ? path : dirname(path)
    // Recursive watching exists on Linux from Node 20 on (and everywhere else earlier).
    watchers.push(watch(target, { recursive: isDirectory(path) }, changed))
  }
  await cycle()
  await new Promise<void>((resolve) => {
    const stop = () => resolve()
    process.once('SIGINT', stop)
    process.once('SIGTERM', stop)
  })
  clearTimeout(timer)
  for (const watcher of watchers) watcher.close()
}

function isDirectory(path: string): boolean {
  try {
    return statSync(path).isDirectory()
  } catch {
    return false
  }
}
