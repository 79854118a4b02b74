/**
 * Starting and stopping a regent HTTP server: one log line with the address on start, and a
 * graceful stop (stop accepting, let in-flight requests finish within a grace period, then
 * close what is left) on SIGTERM/SIGINT.
 */
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http'
import type { AddressInfo } from 'node:net'
import { getRequestListener } from '@hono/node-server'
import type { Logger } from 'pino'

/**
 * Answers a request itself on Node's request and response and returns true, or returns false
 * (having written nothing) to pass it on to the app.
 */
export type FastPath = (req: IncomingMessage, res: ServerResponse) => boolean

type FetchHandler = (request: Request) => Response | Promise<Response>

export interface ServeOptions {
  fetch: FetchHandler
  host: string
  port: number
  logger: Logger
  /** What the log line calls this server, e.g. "relay". */
  name: string
  /** How long in-flight requests may run after a stop begins. */
  graceMs?: number
  /** Offered every request before the app (hot paths that must skip the middleware chain). */
  fastPath?: FastPath
}

export interface RunningServer {
  /** `http://host:port` as bound (port 0 resolves to the real port). */
  url: string
  port: number
  /** Stops accepting, waits for in-flight requests up to the grace period, then closes. */
  stop(): Promise<void>
}

/** Listens on host:port and resolves once the socket is bound. */
export function startServer(options: ServeOptions): Promise<RunningServer> {
  const graceMs = options.graceMs ?? 10_000
  return new Promise((resolve, reject) => {
    // What @hono/node-server's serve() does, with the fast path offered each request first.
    const listener = getRequestListener(options.fetch, { hostname: options.host })
    const fast = options.fastPath
    const server = createServer(
      fast
        ? (req, res) => {
            if (!fast(req, res)) void listener(req, res)
          }
        : listener,
    )
    server.listen(options.port, options.host)
    server.once('error', reject)
    server.once('listening', () => {
      const { port } = server.address() as AddressInfo
      const host = options.host.includes(':') ? `[${options.host}]` : options.host
      const url = `http://${host}:${port}`
      options.logger.info({ addr: url, server: options.name }, 'listening')
      let stopping: Promise<void> | undefined
      const stop = () => {
        stopping ??= new Promise<void>((done) => {
          const timer = setTimeout(() => {
            options.logger.warn({ grace_ms: graceMs }, 'grace period over, closing open connections')
            server.closeAllConnections()
          }, graceMs)
          timer.unref()
          // Keep-alive connections hold close() open: close them as soon as their last
          // in-flight request has been answered.
          const closeIdle = () => server.closeIdleConnections()
          const idleSweep = setInterval(closeIdle, 50)
          server.close(() => {
            clearTimeout(timer)
            clearInterval(idleSweep)
            done()
          })
          closeIdle()
        })
        return stopping
      }
      resolve({ url, port, stop })
    })
  })
}

/**
 * Runs `shutdown` once on the first SIGTERM or SIGINT, then exits 0 (1 if shutdown threw).
 * A second signal exits at once.
 */
export function stopOnSignals(logger: Logger, shutdown: () => Promise<void>): void {
  let stopping = false
  const onSignal = (signal: NodeJS.Signals) => {
    if (stopping) process.exit(1)
    stopping = true
    logger.info({ signal }, 'shutting down')
    shutdown().then(
      () => process.exit(0),
      (err: unknown) => {
        logger.error({ err }, 'shutdown failed')
        process.exit(1)
      },
    )
  }
  process.once('SIGTERM', onSignal)
  process.once('SIGINT', onSignal)
}

/** Parses `HOST:PORT` (or `:PORT`, or `[::1]:PORT`) into its parts. */
export function parseAddress(addr: string, defaultHost = '127.0.0.1'): { host: string; port: number } {
  const match = /^(?:\[([^\]]+)\]|([^:]*)):(\d{1,5})$/.exec(addr.trim())
  const port = Number(match?.[3])
  if (!match || port > 65535) throw new Error(`invalid address "${addr}": expected HOST:PORT`)
  return { host: match[1] ?? (match[2] || defaultHost), port }
}
