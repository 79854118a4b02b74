/**
 * The relay's listener: plain HTTP, or HTTPS with required client certificates for
 * `agent_auth: {type: mtls}` (checked by the TLS handshake itself, so no route ever sees an
 * unauthenticated agent). Each request is first offered to the bundle fast path, which answers
 * an agent's plain poll straight on Node's request and response; everything else goes to the
 * Hono app through @hono/node-server.
 *
 * NOTE(relay): core/http's startServer serves plain HTTP through `serve()` only; the relay needs
 * TLS and the fast path in front of Hono, so this is its twin with the same start log line and
 * the same graceful stop (stop accepting, close idle keep-alive connections as they go idle,
 * cut the rest after the grace period).
 */
import {
  createServer as createHttpServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
} from 'node:http'
import { createServer as createHttpsServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { getRequestListener } from '@hono/node-server'
import type { Logger } from 'pino'
import type { FastPath, RunningServer } from '../core/http/index.js'
import { readKeyFile } from '../core/key-files.js'

export type { FastPath } from '../core/http/index.js'

export interface RelayServerOptions {
  fetch: (request: Request) => Response | Promise<Response>
  fastPath?: FastPath
  host: string
  port: number
  logger: Logger
  /** PEM files for mutual TLS; plain HTTP when absent. */
  tls?: { cert: string; privateKey: string; clientCa: string }
  graceMs?: number
}

/** Listens and resolves once bound. */
export function startRelayServer(options: RelayServerOptions): Promise<RunningServer> {
  const listener = getRequestListener(options.fetch)
  const fast = options.fastPath
  const onRequest = (req: IncomingMessage, res: ServerResponse) => {
    if (fast?.(req, res)) return
    void listener(req, res)
  }
  const server: Server = options.tls
    ? createHttpsServer(
        {
          // The only source of these files is relay.agent_auth (type mtls).
          cert: readKeyFile(options.tls.cert, 'relay.agent_auth.cert'),
          key: readKeyFile(options.tls.privateKey, 'relay.agent_auth.private_key'),
          ca: readKeyFile(options.tls.clientCa, 'relay.agent_auth.client_ca'),
          requestCert: true,
          rejectUnauthorized: true,
        },
        onRequest,
      )
    : createHttpServer(onRequest)
  const graceMs = options.graceMs ?? 10_000
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    server.listen(options.port, options.host, () => {
      const { port } = server.address() as AddressInfo
      const host = options.host.includes(':') ? `[${options.host}]` : options.host
      const url = `${options.tls ? 'https' : 'http'}://${host}:${port}`
      options.logger.info(
        { addr: url, server: 'relay', ...(options.tls ? { tls: 'mutual' } : {}) },
        'listening',
      )
      let stopping: Promise<void> | undefined
      const stop = () => {
        stopping ??= new Promise<void>((done) => {
          const timer = setTimeout(() => {
            options.logger.warn({ grace_ms: graceMs }, 'grace period over, closing open connections')
            server.closeAllConnections()
          }, graceMs)
          timer.unref()
          const idleSweep = setInterval(() => server.closeIdleConnections(), 50)
          server.close(() => {
            clearTimeout(timer)
            clearInterval(idleSweep)
            done()
          })
          server.closeIdleConnections()
        })
        return stopping
      }
      resolve({ url, port, stop })
    })
  })
}
