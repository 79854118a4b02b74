/**
 * Wiring of one relay process: resolve targets, restore last good bundles from disk, listen,
 * then start pulling from upstream. Agents are served from the restored copies before the first
 * upstream call, so they can start while the upstream is down. `stop()` releases long-polling
 * agents (304), stops accepting, stops pullers and forwarders and lets extensions flush.
 */
import { randomUUID } from 'node:crypto'
import type { Hono } from 'hono'
import type { Logger } from 'pino'
import { type AppEnv, type FastPath, isLoopbackAddress, parseAddress } from '../core/http/index.js'
import { warnOnSharedModes } from '../core/state-files.js'
import { BundleCache } from '../plugins/bundle/bundle-cache.js'
import { BundleDiskStore } from '../plugins/bundle/disk-store.js'
import { PullerPool } from '../plugins/bundle/puller-pool.js'
import { resolveTargets, TargetError } from '../plugins/bundle/targets.js'
import { LongPollWaiters } from '../plugins/bundle/waiters.js'
import { ServiceClient } from '../plugins/rest/service-client.js'
import { AgentStatuses } from '../plugins/status/agent-statuses.js'
import { StatusForwarder } from '../plugins/status/status-forwarder.js'
import { createRelayApp } from './app.js'
import type { RelayConfig } from './config.js'
import { DiscoveredBundles } from './discovery.js'
import { bundleFastPath } from './fast-path.js'
import { createRelayMetrics } from './metrics.js'
import { startRelayServer } from './server.js'
import { type RelayStatusSources, relayStatusReport } from './status/relay-status.js'
import { chooseStorageFolder } from './storage.js'
import type { RelayContext, RelayExtension, RelayExtensionFactory } from './types.js'

const MAX_TRACKED_AGENTS = 10_000

export interface StartRelayOptions {
  config: RelayConfig
  logger: Logger
  /** Overrides `relay.addr`. */
  addr?: string
  /** Overrides `relay.storage.dir`. */
  dataDir?: string
  /** regent's version, for the User-Agent and status reports. */
  version?: string
  /** Parts mounted into the relay (the decision-log intake and forwarder). */
  extensions?: RelayExtensionFactory[]
  /** Environment for `${…}`-free settings such as AWS credentials; defaults to process.env. */
  env?: NodeJS.ProcessEnv
}

/** A running relay. */
export interface RunningRelay {
  url: string
  app: Hono<AppEnv>
  context: RelayContext
  stop(): Promise<void>
}

/**
 * A relay on a non-loopback address without agent_auth serves bundles and takes status and
 * decision logs from anyone who can reach it (the compile endpoint still answers loopback callers
 * only, see compile/loopback-only.ts). That is how a sidecar listens for the kubelet's probes, so
 * it is allowed, but said loudly at every start.
 */
export function warnIfOpenToTheNetwork(host: string, auth: string, logger: Logger): void {
  if (auth !== 'none' || host === 'localhost' || isLoopbackAddress(host)) return
  logger.warn(
    { addr: host, agent_auth: auth },
    'relay listens beyond loopback without relay.agent_auth: bundles, status and decision-log intake are open to every caller that can reach it; /v1/compile answers loopback callers only. Configure relay.agent_auth (bearer or mtls) unless a network policy isolates the pod',
  )
}

/** Starts a relay; throws (before listening) when the config cannot work. */
export async function startRelay(options: StartRelayOptions): Promise<RunningRelay> {
  const { config, logger } = options
  const section = config.relay
  const version = options.version ?? '0.0.0'
  const targets = resolveTargets(config, config.relay.bundles.max_inflated_bytes)
  // OPA's status plugin defaults to the first service when `status` names none.
  const statusService =
    config.status?.service ?? (config.status ? Object.keys(config.services)[0] : undefined)
  if (statusService !== undefined && !config.services[statusService]) {
    throw new TargetError(`status.service: no service named "${statusService}"`)
  }
  const services = new Map(
    Object.entries(config.services).map(([name, service]) => [
      name,
      new ServiceClient(name, service, { env: options.env, userAgent: `regent-relay/${version}` }),
    ]),
  )
  // Refuses to start when nothing the next start reads can be written (see storage.ts).
  const dataDir = chooseStorageFolder({
    dir: options.dataDir ?? section.storage.dir,
    fallbackDir: section.storage.fallback_dir,
    logger,
  })
  const disk = new BundleDiskStore(dataDir, logger)
  const waiters = new LongPollWaiters(section.long_poll.max_waiters)
  const cache = new BundleCache(waiters, disk, logger)
  const metrics = createRelayMetrics(cache)
  const identity = { id: randomUUID(), version, startedAt: new Date(), labels: config.labels }
  const context: RelayContext = {
    config,
    logger,
    metrics,
    cache,
    services,
    dataDir,
    persistent: section.storage.persistent,
    identity,
  }
  const upstream: RelayStatusSources['upstream'] = {}
  const agents = new AgentStatuses(MAX_TRACKED_AGENTS, section.status.agent_ttl_seconds * 1000)

  let discovery: DiscoveredBundles | undefined
  const pool = new PullerPool({
    services,
    cache,
    disk,
    metrics,
    logger,
    onPromote: async (target, verified) => {
      if (target.kind === 'discovery') await discovery?.apply(verified)
    },
    onContact: (at, ok) => {
      upstream.lastContact = at
      if (ok) upstream.lastSuccessfulContact = at
    },
  })
  discovery = new DiscoveredBundles(config, pool, logger)
  for (const target of targets) await pool.add(target)
  const discoveryTarget = targets.find((t) => t.kind === 'discovery')
  // NOTE(relay): agents booted against a Local Plane name discovery without a prefix, so OPA
  // asks for `bundles/<name>`; serve the discovery bundle there too when nothing else is.
  if (discoveryTarget) cache.alias(`bundles/${discoveryTarget.name}`, discoveryTarget.resource)

  const extensions: RelayExtension[] = []
  for (const make of options.extensions ?? []) extensions.push(await make(context))
  const status: RelayStatusSources = {
    identity,
    cache,
    agents,
    upstream,
    extensions: new Map(extensions.filter((e) => e.status).map((e) => [e.name, () => e.status!()])),
  }
  const app = createRelayApp({
    logger,
    context,
    agents,
    statusLimits: section.status,
    status,
    agentAuth: section.agent_auth,
    maxWaitSeconds: section.long_poll.max_wait_seconds,
    readiness: extensions.filter((e) => e.ready).map((e) => () => e.ready!()),
    routes: extensions.filter((e) => e.routes).map((e) => e.routes!),
  })

  const { host, port } = parseAddress(options.addr ?? section.addr)
  const auth = section.agent_auth
  warnIfOpenToTheNetwork(host, auth.type, logger)
  let server: Awaited<ReturnType<typeof startRelayServer>>
  try {
    server = await startRelayServer({
      fetch: app.fetch,
      fastPath: firstFastPath([
        bundleFastPath({
          cache,
          metrics,
          logger,
          maxWaitSeconds: section.long_poll.max_wait_seconds,
          enabled: auth.type !== 'bearer',
        }),
        ...extensions.map((e) => e.fastPath),
      ]),
      host,
      port,
      logger,
      tls:
        auth.type === 'mtls'
          ? { cert: auth.cert, privateKey: auth.private_key, clientCa: auth.client_ca }
          : undefined,
    })
  } catch (err) {
    // Not started (a TLS file missing, the port taken): release what is open so the process ends.
    for (const extension of extensions) await extension.stop?.()
    await pool.stop()
    await Promise.all([...services.values()].map((s) => s.close()))
    throw err
  }

  pool.start()
  const statusClient = statusService ? services.get(statusService) : undefined
  const forwarder = statusClient
    ? new StatusForwarder({
        client: statusClient,
        partition: config.status?.partition_name,
        agents,
        ownReport: () => relayStatusReport(status),
        intervalMs: section.status.forward_interval_seconds * 1000,
        metrics,
        logger: logger.child({ component: 'status' }),
      })
    : undefined
  forwarder?.start()
  for (const extension of extensions) await extension.start?.()
  warnOnSharedModes([dataDir], logger)
  logger.info(
    {
      targets: targets.map((t) => `${t.kind}:${t.name}`),
      data_dir: dataDir,
      status_forwarding: !!forwarder,
    },
    'relay started',
  )

  let stopping: Promise<void> | undefined
  const stop = () => {
    stopping ??= (async () => {
      waiters.close()
      await server.stop()
      await pool.stop()
      await forwarder?.stop()
      for (const extension of extensions) await extension.stop?.()
      await Promise.all([...services.values()].map((s) => s.close()))
      logger.info('relay stopped')
    })()
    return stopping
  }
  return { url: server.url, app, context, stop }
}

/** The fast paths in order, each offered the request until one answers it (undefined when none). */
function firstFastPath(paths: Array<FastPath | undefined>): FastPath | undefined {
  const present = paths.filter((p): p is FastPath => p !== undefined)
  if (present.length <= 1) return present[0]
  return (req, res) => present.some((path) => path(req, res))
}
