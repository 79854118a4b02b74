/**
 * Starting `regent run -s` as an agent: the app with its guards (authentication, authorization,
 * metrics, pprof), one listener per address (TLS, h2c, unix sockets), the diagnostic listeners,
 * the file watcher, the readiness wait; and the stop: keep serving for the wait period (so a load
 * balancer can take the instance out), then stop accepting and let in-flight requests finish within
 * the grace period.
 */
import type { Registry } from 'prom-client'
import { createRunApp, type RunAppOptions } from './app.js'
import type { AuthenticationScheme } from './authn.js'
import { createDiagnosticApp } from './diagnostic.js'
import { type AgentListener, type ListenAddress, listen } from './listen.js'
import { createAgentMetrics } from './metrics.js'
import { waitUntilReady } from './ready.js'
import type { TlsSettings } from './tls.js'
import { watchFiles } from './watch.js'

/** The server settings the agent acts on (the CLI's checked flags). */
export interface AgentServerSettings {
  authentication: AuthenticationScheme
  authorizationDecision: string | undefined
  tls: TlsSettings | undefined
  diagnosticAddrs: ListenAddress[]
  h2c: boolean
  readyTimeoutSeconds: number
  graceMs: number
  waitMs: number
  unixSocketPerm: number
  pprof: boolean
}

export interface StartAgentOptions {
  app: RunAppOptions
  addresses: ListenAddress[]
  server: AgentServerSettings
  /** `--watch`: what to reload. */
  watch?: { paths: string[]; ignore: string[]; regoVersion: 'v0' | 'v1'; initialIds: string[] }
  /** What must be ready before the listeners open (plugins). */
  ready?: Promise<unknown>[]
  /** Metrics registries `/metrics` serves beside the server's own (the plugins'). */
  metricsRegistries?: Registry[]
}

/** A started agent. */
export interface RunningAgent {
  urls: string[]
  diagnosticUrls: string[]
  /** The wait period, then a graceful stop of every listener. */
  stop(): Promise<void>
}

/** Starts everything; on a bind failure closes what was opened and rethrows. */
export async function startAgent(options: StartAgentOptions): Promise<RunningAgent> {
  const { server, app: appOptions } = options
  const logger = appOptions.logger
  await waitUntilReady(options.ready ?? [], server.readyTimeoutSeconds)
  const metrics = createAgentMetrics({ also: options.metricsRegistries ?? [] })
  const app = createRunApp({
    ...appOptions,
    authentication: server.authentication,
    ...(server.authorizationDecision !== undefined
      ? { authorizationDecision: server.authorizationDecision }
      : {}),
    metrics,
    pprof: server.pprof,
  })
  const main: AgentListener[] = []
  const diagnostic: AgentListener[] = []
  try {
    for (const address of options.addresses) {
      main.push(
        await listen({
          fetch: app.fetch,
          address,
          logger,
          name: 'run',
          ...(server.tls ? { tls: server.tls } : {}),
          h2c: server.h2c,
          unixSocketPerm: server.unixSocketPerm,
        }),
      )
    }
    if (server.diagnosticAddrs.length > 0) {
      const diagnosticApp = createDiagnosticApp({ ...appOptions, metrics })
      for (const address of server.diagnosticAddrs) {
        diagnostic.push(
          await listen({
            fetch: diagnosticApp.fetch,
            address,
            logger,
            name: 'diagnostic',
            unixSocketPerm: server.unixSocketPerm,
          }),
        )
      }
    }
  } catch (err) {
    await Promise.all([...main, ...diagnostic].map((l) => l.stop(0)))
    throw err
  }
  const stopWatching = options.watch
    ? watchFiles({ state: appOptions.state, logger, ...options.watch })
    : () => {}
  let stopping: Promise<void> | undefined
  return {
    urls: main.map((l) => l.url),
    diagnosticUrls: diagnostic.map((l) => l.url),
    stop() {
      stopping ??= (async () => {
        if (server.waitMs > 0) {
          logger.info({ wait_ms: server.waitMs }, 'shutdown wait period: still serving')
          await new Promise((resolve) => setTimeout(resolve, server.waitMs))
        }
        stopWatching()
        await Promise.all([...main, ...diagnostic].map((l) => l.stop(server.graceMs)))
      })()
      return stopping
    },
  }
}
