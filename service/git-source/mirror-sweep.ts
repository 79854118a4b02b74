/**
 * The service's mirror sweep: removes the mirrors in the data folder that no system origin and no
 * git datasource uses (../git/mirror-sweep.ts does the removing, under each mirror's lock). The
 * git poller runs it after each round; the service once at start when polling is off.
 */
import type { Logger } from 'pino'
import type { ServiceStore } from '../../store/service/index.js'
import { sweepMirrors } from '../git/index.js'
import { originFieldsOf } from '../git-origin/origin.js'

/** Sweeps once; failures are logged, never thrown (a sweep is housekeeping). */
export async function sweepUnusedMirrors(options: {
  store: ServiceStore
  dataDir: string
  logger: Logger
  graceMs?: number
}): Promise<string[]> {
  const { store, dataDir, logger, graceMs } = options
  try {
    const removed = await sweepMirrors({ dataDir, graceMs, urlsInUse: () => repositoryUrlsInUse(store) })
    if (removed.length > 0) logger.info({ removed }, 'removed git mirrors no configuration uses')
    return removed
  } catch (err) {
    logger.error({ err }, 'git mirror sweep failed')
    return []
  }
}

/** Datasource categories read through the git layer (service/datasources/git-*.ts). */
const GIT_CATEGORY = /^git\//

/**
 * The repository URLs the configurations use now: every system's `source_control.origin.url`
 * (git-backed or not: the source-control endpoints use it too) and every git datasource's `url`.
 */
export async function repositoryUrlsInUse(store: ServiceStore): Promise<string[]> {
  const [systems, datasources] = await Promise.all([store.systems.list(), store.datasources.list()])
  const urls: string[] = []
  for (const system of systems) {
    const url = originFieldsOf(system)?.url
    if (url !== undefined) urls.push(url)
  }
  for (const datasource of datasources) {
    if (!GIT_CATEGORY.test(datasource.category)) continue
    const url = urlOf(datasource.config)
    if (url !== undefined) urls.push(url)
  }
  return urls
}

function urlOf(config: string): string | undefined {
  try {
    const url = (JSON.parse(config) as { url?: unknown } | null)?.url
    return typeof url === 'string' ? url : undefined
  } catch {
    return undefined
  }
}
