/**
 * The relay's HTTPS listener for `agent_auth: {type: mtls}`: agents must present a certificate
 * signed by `client_ca`, checked by the TLS handshake itself (`requestCert` and
 * `rejectUnauthorized`), so no route ever sees an unauthenticated agent.
 *
 * NOTE(relay): core/http's startServer serves plain HTTP only; this is its TLS twin, kept small.
 */
import { readFileSync } from 'node:fs'
import { createServer } from 'node:https'
import type { AddressInfo } from 'node:net'
import { serve } from '@hono/node-server'
import type { Logger } from 'pino'
import type { RunningServer } from '../core/http/index.js'

export interface TlsServeOptions {
  fetch: (request: Request) => Response | Promise<Response>
  host: string
  port: number
  logger: Logger
  cert: string
  privateKey: string
  clientCa: string
  graceMs?: number
}

/** Listens with mutual TLS and resolves once bound. */
export function startTlsServer(options: TlsServeOptions): Promise<RunningServer> {
  const read = (path: string) => readFileSync(path, 'utf8')
  const serverOptions = {
    cert: read(options.cert),
    key: read(options.privateKey),
    ca: read(options.clientCa),
    requestCert: true,
    rejectUnauthorized: true,
  }
  return new Promise((resolve, reject) => {
    const server = serve({
      fetch: options.fetch,
      hostname: options.host,
      port: options.port,
      createServer,
      serverOptions,
    })
    server.once('error', reject)
    server.once('listening', () => {
      const { port } = server.address() as AddressInfo
      const host = options.host.includes(':') ? `[${options.host}]` : options.host
      const url = `https://${host}:${port}`
      options.logger.info({ addr: url, server: 'relay', tls: 'mutual' }, 'listening')
      let stopping: Promise<void> | undefined
      const stop = () => {
        stopping ??= new Promise<void>((done) => {
          const timer = setTimeout(() => {
            if ('closeAllConnections' in server) server.closeAllConnections()
          }, options.graceMs ?? 10_000)
          timer.unref()
          server.close(() => {
            clearTimeout(timer)
            done()
          })
          if ('closeIdleConnections' in server) server.closeIdleConnections()
        })
        return stopping
      }
      resolve({ url, port, stop })
    })
  })
}
