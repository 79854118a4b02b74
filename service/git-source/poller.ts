/**
 * Polls every git-backed system on an interval (`service.git.poll_interval`), one system after
 * another so a slow remote delays the others' next poll rather than piling up fetches. After each
 * round it sweeps the mirrors no configuration uses any more (`sweep`, ./mirror-sweep.ts).
 */
import type { Logger } from 'pino'
import { BackgroundLoop } from '../../core/background-loop.js'
import type { ServiceStore } from '../../store/service/index.js'
import type { GitSource } from './git-source.js'

export class GitPoller {
  private readonly loop: BackgroundLoop

  constructor(options: {
    store: ServiceStore
    source: GitSource
    logger: Logger
    intervalMs: number
    sweep: () => Promise<unknown>
  }) {
    const { store, source, logger, intervalMs, sweep } = options
    this.loop = new BackgroundLoop(async () => {
      try {
        for (const system of await store.systems.list()) {
          if (!source.isGitBacked(system)) continue
          try {
            await source.sync(system.id, { rebuild: 'when-changed' })
          } catch (err) {
            // sync records git failures itself; this is the store or a rebuild failing.
            logger.error({ system_id: system.id, err }, 'git poll failed')
          }
        }
      } catch (err) {
        logger.error({ err }, 'git poll failed')
      }
      await sweep()
      return intervalMs
    })
  }

  start(): void {
    this.loop.start()
  }

  stop(): Promise<void> {
    return this.loop.stop()
  }
}
