/**
 * The relay's data-filter endpoint: `/v1/compile` (compile/route.ts) over the policies of the bundles
 * the relay currently serves, answered on worker threads (compile-pool.ts) so that a runaway query
 * never holds the thread that serves bundles, health and decision-log intake. The served bundles are
 * the verified, promoted ones; before each compile request the extension checks whether any was
 * promoted since it last looked, and if so sends the bundles to the workers, which load them before
 * any later request (served-policies.ts).
 */
import type { Logger } from 'pino'
import { compileRunnerRoutes } from '../../compile/runner-route.js'
import type { BundleCache, ServedBundle } from '../../plugins/bundle/bundle-cache.js'
import type { RelayContext, RelayExtension } from '../types.js'
import { CompilePool } from './compile-pool.js'
import { type CompileConfig, compileConfigSchema } from './config.js'
import { compileFastPath } from './fast-path.js'
import { loopbackOnly } from './loopback-only.js'
import { registerCompileMetrics } from './metrics.js'
import type { LoadReport } from './protocol.js'

/** Follows the served bundles and hands each new set to the compile workers. */
export class ServedBundles {
  readonly #cache: BundleCache
  readonly #pool: CompilePool
  readonly #logger: Logger
  #served: ServedBundle[] = []
  #revisions: Record<string, string> = {}
  #report: LoadReport = { modules: 0 }
  #reportGeneration = 0

  constructor(cache: BundleCache, pool: CompilePool, logger: Logger) {
    this.#cache = cache
    this.#pool = pool
    this.#logger = logger
  }

  /** Sends the served bundles to the workers if the set changed since the last look. */
  refresh(): void {
    const states = this.#cache.all().filter((s) => s.target.kind === 'bundle' && s.served)
    const served = states.map((s) => s.served as ServedBundle)
    if (served.length === this.#served.length && served.every((b, i) => b === this.#served[i])) return
    this.#served = served
    const names = states.map((s) => s.target.name)
    this.#revisions = Object.fromEntries(names.map((n, i) => [n, served[i]?.revision ?? '']))
    // Served bundles passed the relay's inflated-size bound; workers read them with the same one.
    const maxInflatedBytes = Math.max(0, ...states.map((s) => s.target.maxInflatedBytes ?? 0)) || undefined
    this.#pool.load({
      names,
      bytes: served.map((b) => b.bytes),
      ...(maxInflatedBytes ? { maxInflatedBytes } : {}),
    })
  }

  /** A worker's report on loading generation `generation` (the first report of each is logged). */
  loaded(report: LoadReport, generation: number): void {
    if (generation <= this.#reportGeneration) return
    this.#reportGeneration = generation
    this.#report = report
    const bundles = Object.keys(this.#revisions)
    if (report.error) this.#logger.warn({ bundles, err: report.error }, 'compile policies not loaded')
    else this.#logger.info({ bundles, modules: report.modules }, 'compile policies loaded')
  }

  /** For `/v1/relay/status`: the revisions sent to the workers and whether they loaded. */
  status(): Record<string, unknown> {
    const lane = this.#pool.laneStats()
    return {
      bundles: this.#revisions,
      modules: this.#report.modules,
      ...(this.#report.error ? { error: this.#report.error } : {}),
      workers: this.#pool.stats(),
      ...(lane ? { main_thread: lane } : {}),
    }
  }
}

/** The relay extension that mounts `/v1/compile` over the served bundles. */
export function compileExtension(context: RelayContext): RelayExtension {
  const config: CompileConfig = context.config?.relay?.compile ?? compileConfigSchema.parse(undefined)
  let served: ServedBundles | undefined
  const pool = new CompilePool(config, context.logger, (report, generation) =>
    served?.loaded(report, generation),
  )
  served = new ServedBundles(context.cache, pool, context.logger)
  if (context.metrics) registerCompileMetrics(context.metrics.registry, () => pool.stats())
  const bundles = served
  const authType = context.config?.relay?.agent_auth.type
  const open = authType !== 'bearer' && authType !== 'mtls'
  return {
    name: 'compile',
    // Only without agent_auth: authenticated callers go through the app's checks.
    ...(open
      ? {
          fastPath: compileFastPath({
            run: (request) => pool.run(request),
            refresh: () => bundles.refresh(),
            metrics: context.metrics,
            logger: context.logger,
          }),
        }
      : {}),
    routes(app) {
      if (open) {
        app.use('/v1/compile', loopbackOnly())
        app.use('/v1/compile/*', loopbackOnly())
      }
      app.use('/v1/compile', async (_c, next) => {
        bundles.refresh()
        await next()
      })
      app.use('/v1/compile/*', async (_c, next) => {
        bundles.refresh()
        await next()
      })
      app.route('/', compileRunnerRoutes({ run: (request) => pool.run(request), logger: context.logger }))
    },
    start: () => bundles.refresh(),
    stop: () => pool.close(),
    status: () => bundles.status(),
  }
}
