/**
 * The listeners of `regent run -s`: plain HTTP/1.1; HTTPS (`--tls-*`) with HTTP/2 offered by ALPN;
 * HTTP/2 cleartext beside HTTP/1.1 on the same port (`--h2c`: the first bytes of a connection tell
 * the HTTP/2 preface from an HTTP/1 request line, as Go's h2c handler does); on TCP addresses or
 * `unix://` sockets (`--unix-socket-perm`). Stopping stops accepting, lets in-flight requests
 * finish within the grace period (idle keep-alive connections and HTTP/2 sessions are closed as
 * soon as they are idle), then cuts what is left.
 */
import { chmodSync, lstatSync, unlinkSync } from 'node:fs'
import { createServer as createHttpServer, Server as HttpServer } from 'node:http'
import { createServer as createHttp2Server, createSecureServer, type Http2Session } from 'node:http2'
import { type AddressInfo, createServer as createNetServer, type Server, type Socket } from 'node:net'
import { Duplex } from 'node:stream'
import { getRequestListener } from '@hono/node-server'
import type { Logger } from 'pino'
import { refreshCertificates, refuseUnverifiedPeers, type TlsSettings, tlsServerOptions } from './tls.js'

/** Where to listen. */
export type ListenAddress = { kind: 'tcp'; host: string; port: number } | { kind: 'unix'; path: string }

export interface ListenOptions {
  fetch: (request: Request, env: unknown) => Response | Promise<Response>
  address: ListenAddress
  logger: Logger
  /** What the `listening` log line calls it (`run`, `diagnostic`). */
  name: string
  tls?: TlsSettings
  h2c?: boolean
  /** File mode of a unix socket (OPA's default 0755). */
  unixSocketPerm?: number
}

/** A bound listener. */
export interface AgentListener {
  /** `http(s)://host:port` as bound, or `unix:///path`. */
  url: string
  /** Stops accepting, waits up to `graceMs` for in-flight requests, then closes the rest. */
  stop(graceMs: number): Promise<void>
}

/** Binds one listener; rejects when the address cannot be bound or TLS files do not load. */
export async function listen(options: ListenOptions): Promise<AgentListener> {
  const handler = getRequestListener(options.fetch as Parameters<typeof getRequestListener>[0])
  const sockets = new Set<Socket>()
  let closeIdle: () => void
  let stopRefresh = () => {}
  let server: Server
  if (options.tls) {
    // HTTP/2 when the client offers it (ALPN), HTTP/1.1 otherwise, as Go's TLS server does.
    const https = createSecureServer(
      { ...tlsServerOptions(options.tls), allowHTTP1: true },
      handler as unknown as Parameters<typeof createSecureServer>[1],
    )
    if (options.tls.caFile && !options.tls.requireClientCert) refuseUnverifiedPeers(https)
    stopRefresh = refreshCertificates(https, options.tls, options.logger)
    const sessions = trackSessions(https)
    closeIdle = () => {
      // node:http2 tracks its HTTP/1.1 connections as node:http does; the method is node:http's.
      HttpServer.prototype.closeIdleConnections.call(https as unknown as HttpServer)
      closeSessions(sessions)
    }
    server = https
  } else if (options.h2c) {
    const { server: dispatcher, closeIdle: close } = h2cServer(handler)
    server = dispatcher
    closeIdle = close
  } else {
    const http = createHttpServer(handler)
    closeIdle = () => http.closeIdleConnections()
    server = http
  }
  server.on('connection', (socket: Socket) => {
    sockets.add(socket)
    socket.once('close', () => sockets.delete(socket))
  })
  const url = await bind(server, options)
  options.logger.info({ addr: url, server: options.name }, 'listening')
  let stopping: Promise<void> | undefined
  const stop = (graceMs: number) => {
    stopping ??= new Promise<void>((done) => {
      stopRefresh()
      const timer = setTimeout(() => {
        options.logger.warn(
          { grace_ms: graceMs, server: options.name },
          'grace period over, closing open connections',
        )
        for (const socket of sockets) socket.destroy()
      }, graceMs)
      timer.unref()
      const sweep = setInterval(closeIdle, 50)
      server.close(() => {
        clearTimeout(timer)
        clearInterval(sweep)
        done()
      })
      closeIdle()
    })
    return stopping
  }
  return { url, stop }
}

function bind(server: Server, options: ListenOptions): Promise<string> {
  const address = options.address
  return new Promise((resolve, reject) => {
    server.once('error', reject)
    const onListening = () => {
      server.off('error', reject)
      if (address.kind === 'unix') {
        chmodSync(address.path, options.unixSocketPerm ?? 0o755)
        resolve(`unix://${address.path}`)
        return
      }
      const { port } = server.address() as AddressInfo
      const host = address.host.includes(':') ? `[${address.host}]` : address.host
      resolve(`${options.tls ? 'https' : 'http'}://${host}:${port}`)
    }
    if (address.kind === 'unix') {
      removeStaleSocket(address.path)
      server.listen(address.path, onListening)
    } else {
      server.listen(address.port, address.host, onListening)
    }
  })
}

// A socket file left by a process that was killed would make listen fail with EADDRINUSE.
function removeStaleSocket(path: string): void {
  try {
    if (lstatSync(path).isSocket()) unlinkSync(path)
  } catch {
    // Nothing there.
  }
}

type NodeHandler = ReturnType<typeof getRequestListener>

/** One TCP server handing each connection to an HTTP/2 or an HTTP/1.1 server by its first bytes. */
function h2cServer(handler: NodeHandler): { server: Server; closeIdle: () => void } {
  const http1: HttpServer = createHttpServer(handler)
  // node:http tracks connections (what closeIdleConnections closes) from its 'listening' event;
  // this server never listens itself (the dispatcher does), so start the tracking by hand.
  http1.emit('listening')
  const http2 = createHttp2Server({}, handler as unknown as Parameters<typeof createHttp2Server>[1])
  const sessions = trackSessions(http2)
  const server = createNetServer((socket) => {
    socket.once('data', (first: Buffer) => {
      // The HTTP/2 connection preface starts "PRI * HTTP/2.0"; no HTTP/1 method is called PRI.
      if (first.subarray(0, 3).toString('latin1') === 'PRI') {
        // node:http2 reads from the socket's handle, past anything unshifted: give it a stream
        // that starts with the bytes already read.
        http2.emit('connection', replayingStream(socket, first))
      } else {
        socket.pause()
        socket.unshift(first)
        http1.emit('connection', socket)
        socket.resume()
      }
    })
  })
  // Ends the connection tracking started above.
  server.once('close', () => http1.close())
  const closeIdle = () => {
    http1.closeIdleConnections()
    closeSessions(sessions)
  }
  return { server, closeIdle }
}

/** A duplex over `socket` whose readable side begins with `first`. */
function replayingStream(socket: Socket, first: Buffer): Duplex {
  const stream = new Duplex({
    read() {
      socket.resume()
    },
    write(chunk: Buffer, _encoding, done) {
      socket.write(chunk, done)
    },
    final(done) {
      socket.end(done)
    },
    destroy(err, done) {
      socket.destroy(err ?? undefined)
      done(err)
    },
  })
  stream.push(first)
  socket.on('data', (chunk: Buffer) => {
    if (!stream.push(chunk)) socket.pause()
  })
  socket.on('end', () => stream.push(null))
  socket.on('close', () => stream.destroy())
  socket.on('error', (err) => stream.destroy(err))
  return stream
}

/** The open HTTP/2 sessions of a server. */
function trackSessions(server: {
  on(event: 'session', listener: (s: Http2Session) => void): unknown
}): Set<Http2Session> {
  const sessions = new Set<Http2Session>()
  server.on('session', (session) => {
    sessions.add(session)
    session.once('close', () => sessions.delete(session))
  })
  return sessions
}

// close() refuses new streams and ends a session once its open streams are answered.
function closeSessions(sessions: Set<Http2Session>): void {
  for (const session of sessions) if (!session.closed) session.close()
}
