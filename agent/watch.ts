/**
 * `-w/--watch`: the policy and data files given on the command line are watched (directories
 * recursively) and, a short while after the last change, loaded again and swapped in as one change
 * (OPA's `--watch`). A reload that does not parse or compile is logged and the server keeps what it
 * had. Policies written through the API stay; bundles (`-b`) are not watched.
 */
import { type FSWatcher, statSync, watch } from 'node:fs'
import { basename, dirname } from 'node:path'
import type { Logger } from 'pino'
import { RegoErrors } from '../core/rego/index.js'
import { loadInitialState } from './load.js'
import type { ServerState } from './state.js'

export interface WatchOptions {
  state: ServerState
  /** Positional paths as given (`prefix:path` allowed). */
  paths: readonly string[]
  ignore: readonly string[]
  regoVersion: 'v0' | 'v1'
  /** Ids of the policies the first load took from these paths. */
  initialIds: readonly string[]
  logger: Logger
  /** Quiet time before a reload (default 100 ms). */
  debounceMs?: number
  /** Called after each reload attempt (tests wait on it). */
  onReload?: (outcome: 'reloaded' | 'failed') => void
}

/** Starts watching; returns the stop. */
export function watchFiles(options: WatchOptions): () => void {
  let currentIds = [...options.initialIds]
  let timer: NodeJS.Timeout | undefined
  let reloading = Promise.resolve()
  const reload = async () => {
    try {
      const loaded = await loadInitialState({
        paths: [...options.paths],
        bundles: [],
        ignore: [...options.ignore],
        regoVersion: options.regoVersion,
      })
      options.state.replaceFiles(currentIds, loaded.policies, loaded.data)
      currentIds = loaded.policies.map((p) => p.id)
      options.logger.info({ policies: currentIds.length }, 'files reloaded')
      options.onReload?.('reloaded')
    } catch (err) {
      const reason = err instanceof RegoErrors ? err.toString() : (err as Error).message
      options.logger.error({ err: reason }, 'reload failed; keeping the loaded policies and data')
      options.onReload?.('failed')
    }
  }
  const schedule = () => {
    clearTimeout(timer)
    timer = setTimeout(() => {
      // One reload at a time, in order.
      reloading = reloading.then(reload)
    }, options.debounceMs ?? 100)
  }
  const watchers: FSWatcher[] = []
  for (const given of options.paths) {
    // `prefix:path` roots a path; the file is the part after the colon.
    const colon = given.indexOf(':')
    const path = colon > 0 && !/^[A-Za-z]:[\\/]/.test(given) ? given.slice(colon + 1) : given
    let watcher: FSWatcher
    try {
      watcher = watchPath(path, schedule)
    } catch (err) {
      // Loaded a moment ago, so this is a race with a delete: serve on, unwatched.
      options.logger.warn({ path, err: (err as Error).message }, 'cannot watch path')
      continue
    }
    watcher.on('error', (err) => options.logger.warn({ path, err: err.message }, 'watch error'))
    watchers.push(watcher)
  }
  return () => {
    clearTimeout(timer)
    for (const w of watchers) w.close()
  }
}

/**
 * Folders are watched recursively. A file is watched through its folder: editors save by writing
 * a new file and renaming it over the old one, which a watch on the old file would not see.
 */
function watchPath(path: string, onChange: () => void): FSWatcher {
  if (statSync(path).isDirectory()) return watch(path, { recursive: true }, onChange)
  const name = basename(path)
  return watch(dirname(path), (_event, changed) => {
    if (changed === null || changed === name) onChange()
  })
}
