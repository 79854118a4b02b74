/**
 * A bundle server for tests that can misbehave on demand. It serves real signed or unsigned
 * tar.gz bundles (made with core/bundle) the way a management service does (ETag, 304,
 * long polling with `Prefer: wait=N`), and can instead answer 500, garbage, a truncated body,
 * an oversized body, or hang without answering. It records every request it sees.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { type BundleManifest, bundleFromParts, signBundle, writeBundle } from '../../core/bundle/index.js'

/** How the server answers a bundle request. */
export type Fault =
  | 'none'
  | 'status-500'
  | 'garbage'
  | 'truncated'
  | 'hang'
  | 'oversized'
  /** Sends the headers and part of the body, then stalls. */
  | 'stall-body'

/** A request as the server saw it. */
export interface SeenRequest {
  method: string
  path: string
  headers: IncomingMessage['headers']
  body: string
}

interface Served {
  bytes: Uint8Array
  etag: string
}

/** The running fault-injecting upstream. */
export class FaultUpstream {
  readonly requests: SeenRequest[] = []
  fault: Fault = 'none'
  /** Size of the body sent with fault 'oversized'. */
  oversizedBytes = 2 * 1024 * 1024
  /** Status posts land here, in order. */
  readonly statusPosts: Array<{ path: string; body: unknown }> = []
  /** Agents (`labels.id`) whose status reports are answered 400 and not recorded. */
  readonly refusedStatusAgents = new Set<string>()
  private readonly bundles = new Map<string, Served>()
  private readonly waiting = new Map<string, Set<() => void>>()
  private readonly sockets = new Set<Socket>()
  private server!: Server
  url = ''

  /** Starts listening on 127.0.0.1 with a free port. */
  async start(port = 0): Promise<this> {
    this.server = createServer((req, res) => void this.handle(req, res))
    this.server.on('connection', (socket) => {
      this.sockets.add(socket)
      socket.on('close', () => this.sockets.delete(socket))
    })
    await new Promise<void>((resolve) => this.server.listen(port, '127.0.0.1', resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
    return this
  }

  get port(): number {
    return (this.server.address() as AddressInfo).port
  }

  /** Serves `bytes` at `path` (e.g. `/v1/bundles/authz`) and wakes long polls on it. */
  setBundle(path: string, bytes: Uint8Array, etag = `"e-${Math.random().toString(36).slice(2)}"`): void {
    this.bundles.set(path, { bytes, etag })
    const waiters = this.waiting.get(path)
    this.waiting.delete(path)
    for (const wake of waiters ?? []) wake()
  }

  /** Requests seen for a path. */
  requestsFor(path: string): SeenRequest[] {
    return this.requests.filter((r) => r.path === path)
  }

  /** Stops listening and drops every open connection (as a crashed upstream would). */
  async stop(): Promise<void> {
    for (const set of this.waiting.values()) for (const wake of set) wake()
    for (const socket of this.sockets) socket.destroy()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private async handle(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const path = (req.url ?? '/').split('?')[0]!
    const body = Buffer.concat(chunks).toString('utf8')
    this.requests.push({ method: req.method ?? 'GET', path, headers: req.headers, body })
    if (req.method === 'POST' && /\/status(\/|$)/.test(path)) {
      const report = JSON.parse(body || 'null') as { labels?: { id?: string } } | null
      if (this.refusedStatusAgents.has(report?.labels?.id ?? '')) {
        res.writeHead(400).end('{"message":"refused"}')
        return
      }
      this.statusPosts.push({ path, body: report })
      res.writeHead(200).end()
      return
    }
    const wait = /wait=(\d+)/.exec(String(req.headers.prefer ?? ''))
    const held = this.bundles.get(path)
    // Hold first, then apply the fault: a long poll woken by a change meets the fault of now.
    if (held && wait && req.headers['if-none-match'] === held.etag)
      await this.hold(path, Number(wait[1]) * 1000)
    if (this.fault === 'hang') return // never answers
    if (this.fault === 'status-500') {
      res.writeHead(500, { 'Content-Type': 'application/json' }).end('{"code":"internal_error"}')
      return
    }
    if (this.fault === 'garbage') {
      res.writeHead(200, { 'Content-Type': 'application/gzip' }).end('this is not a gzip file at all')
      return
    }
    if (this.fault === 'oversized') {
      res.writeHead(200, { 'Content-Type': 'application/gzip' })
      res.end(Buffer.alloc(this.oversizedBytes, 7))
      return
    }
    const served = this.bundles.get(path)
    if (!served) {
      res.writeHead(404, { 'Content-Type': 'application/json' }).end('{"code":"resource_not_found"}')
      return
    }
    if (req.headers['if-none-match'] === served.etag) {
      res.writeHead(304, { ETag: served.etag }).end()
      return
    }
    const headers = {
      ETag: served.etag,
      'Content-Type': wait ? 'application/vnd.openpolicyagent.bundles' : 'application/gzip',
    }
    if (this.fault === 'truncated') {
      res
        .writeHead(200, headers)
        .end(Buffer.from(served.bytes.subarray(0, Math.floor(served.bytes.byteLength / 2))))
      return
    }
    if (this.fault === 'stall-body') {
      res.writeHead(200, { ...headers, 'Content-Length': String(served.bytes.byteLength) })
      res.write(Buffer.from(served.bytes.subarray(0, 10)))
      return // the rest never comes
    }
    res.writeHead(200, headers).end(Buffer.from(served.bytes))
  }

  private hold(path: string, ms: number): Promise<void> {
    return new Promise((resolve) => {
      let set = this.waiting.get(path)
      if (!set) {
        set = new Set()
        this.waiting.set(path, set)
      }
      const done = () => {
        clearTimeout(timer)
        set.delete(done)
        resolve()
      }
      const timer = setTimeout(done, ms)
      set.add(done)
    })
  }
}

/** Starts a fault upstream. */
export function startFaultUpstream(): Promise<FaultUpstream> {
  return new FaultUpstream().start()
}

/** What a test bundle holds. */
export interface TestBundleSpec {
  revision: string
  modules?: Record<string, string>
  data?: Record<string, unknown>
  manifest?: BundleManifest
  /** Signs with this key (PEM private key or HMAC secret). */
  signingKey?: string
  algorithm?: string
  keyId?: string
  scope?: string
}

/** A real gzipped bundle tarball, signed when a key is given. */
export async function makeBundle(spec: TestBundleSpec): Promise<Uint8Array> {
  let bundle = bundleFromParts({
    modules: spec.modules ?? { 'authz/policy.rego': 'package authz\n\ndefault allow := false\n' },
    data: spec.data ?? { authz: { revision: spec.revision } },
    manifest: { revision: spec.revision, ...spec.manifest },
  })
  if (spec.signingKey) {
    bundle = await signBundle(bundle, {
      key: spec.signingKey,
      algorithm: spec.algorithm,
      keyId: spec.keyId,
      scope: spec.scope,
    })
  }
  return writeBundle(bundle)
}
