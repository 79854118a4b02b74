/**
 * A decision-log upstream for tests: a real HTTP server on 127.0.0.1 that records every upload
 * (gunzipped, split into raw event texts) and answers as told: 2xx, any status with headers,
 * 413 above a size, 400 naming the first event a test refuses (as the service does for an
 * invalid event: the whole upload is refused), or never (a hang).
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http'
import type { AddressInfo, Socket } from 'node:net'
import { gunzipSync } from 'node:zlib'
import { splitEvents } from '../../core/decision-events/index.js'

/** One scripted answer: a status (with headers), or `hang` (never answer). */
export type UpstreamAnswer = { status: number; headers?: Record<string, string>; body?: string } | 'hang'

/** One request the upstream received. */
export interface ReceivedUpload {
  at: number
  path: string
  status: number | 'hang'
  headers: IncomingMessage['headers']
  gzipBytes: number
  /** Raw event texts in the order they were in the array. */
  events: string[]
}

export interface LogsUpstreamOptions {
  /** Answer 413 to bodies larger than this (compressed), like a server with a body limit. */
  maxGzipBytes?: number
  port?: number
  /** Delay before each answer, to keep uploads in flight longer. */
  delayMs?: number
}

/** The running test upstream; see the module comment. */
export class LogsUpstream {
  readonly requests: ReceivedUpload[] = []
  private readonly script: UpstreamAnswer[] = []
  private fallback: UpstreamAnswer = { status: 204 }
  private readonly sockets = new Set<Socket>()
  private readonly hanging = new Set<ServerResponse>()
  /** Called with each upload as it is recorded, before it is answered. */
  onUpload: ((upload: ReceivedUpload) => void) | undefined
  /** Why an event is refused (the whole upload gets 400), or undefined to accept it. */
  private eventRefusal: ((eventText: string) => string | undefined) | undefined

  private constructor(
    private readonly server: Server,
    readonly url: string,
    readonly port: number,
    private readonly options: LogsUpstreamOptions,
  ) {}

  /** Starts a server on 127.0.0.1 (port 0 unless given). */
  static async start(options: LogsUpstreamOptions = {}): Promise<LogsUpstream> {
    let upstream: LogsUpstream | undefined
    const server = createServer((req, res) => upstream!.handle(req, res))
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject)
      server.listen(options.port ?? 0, '127.0.0.1', resolve)
    })
    const { port } = server.address() as AddressInfo
    upstream = new LogsUpstream(server, `http://127.0.0.1:${port}`, port, options)
    server.on('connection', (socket) => {
      upstream!.sockets.add(socket)
      socket.on('close', () => upstream!.sockets.delete(socket))
    })
    return upstream
  }

  /** The URL agents' uploads go to. */
  get logsUrl(): string {
    return `${this.url}/logs`
  }

  /** Queues one-shot answers, used before the default. */
  answer(...answers: UpstreamAnswer[]): this {
    this.script.push(...answers)
    return this
  }

  /**
   * Refuses every upload holding an event `why` gives a reason for, with 400 and
   * `{"message": "event N: reason"}` naming the first such event, as the service does.
   */
  refuseEvents(why: (eventText: string) => string | undefined): this {
    this.eventRefusal = why
    return this
  }

  /** The answer once the script is used up (204 at first). */
  answerByDefault(answer: UpstreamAnswer): this {
    this.fallback = answer
    return this
  }

  /** How many events were in accepted (2xx) uploads, duplicates included (cheap to poll). */
  acceptedCount = 0

  /** Event texts of every accepted (2xx) upload, in arrival order, duplicates included. */
  accepted(): string[] {
    return this.requests
      .filter((r) => typeof r.status === 'number' && r.status < 300)
      .flatMap((r) => r.events)
  }

  /** Resolves once `predicate` holds, polling; rejects after `timeoutMs`. */
  async waitFor(
    predicate: () => boolean,
    timeoutMs = 10_000,
    what = 'the upstream condition',
  ): Promise<void> {
    const deadline = Date.now() + timeoutMs
    while (!predicate()) {
      if (Date.now() > deadline) throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}`)
      await new Promise((r) => setTimeout(r, 25))
    }
  }

  /** Stops the server, cutting hanging requests and open connections. */
  async close(): Promise<void> {
    for (const res of this.hanging) res.destroy()
    for (const socket of this.sockets) socket.destroy()
    await new Promise<void>((resolve) => this.server.close(() => resolve()))
  }

  private handle(req: IncomingMessage, res: ServerResponse): void {
    const chunks: Buffer[] = []
    req.on('data', (c: Buffer) => chunks.push(c))
    req.on('end', () => {
      const raw = Buffer.concat(chunks)
      let events: string[] = []
      let parseError: string | undefined
      try {
        const text =
          req.headers['content-encoding'] === 'gzip' ? gunzipSync(raw).toString('utf8') : raw.toString('utf8')
        events = splitEvents(text).events.map((e) => e.text)
      } catch (err) {
        parseError = (err as Error).message
      }
      if (!parseError && this.eventRefusal) {
        for (let i = 0; i < events.length && !parseError; i++) {
          const reason = this.eventRefusal(events[i]!)
          if (reason !== undefined) parseError = `event ${i}: ${reason}`
        }
      }
      const tooLarge = this.options.maxGzipBytes !== undefined && raw.length > this.options.maxGzipBytes
      // A scripted answer is used up only by a request it applies to (not one refused as too large).
      const answer = parseError || tooLarge ? this.fallback : (this.script.shift() ?? this.fallback)
      // Size first, as a server with a body limit refuses before it reads the events.
      const status = tooLarge ? 413 : parseError ? 400 : answer === 'hang' ? 'hang' : answer.status
      const upload: ReceivedUpload = {
        at: Date.now(),
        path: req.url ?? '',
        status,
        headers: req.headers,
        gzipBytes: raw.length,
        events,
      }
      this.requests.push(upload)
      if (typeof status === 'number' && status < 300) this.acceptedCount += events.length
      this.onUpload?.(upload)
      if (status === 'hang') {
        this.hanging.add(res)
        res.on('close', () => this.hanging.delete(res))
        return
      }
      const headers = answer !== 'hang' && !parseError && !tooLarge ? (answer.headers ?? {}) : {}
      const send = () => {
        res.writeHead(status, { 'content-type': 'application/json', ...headers })
        res.end(
          status === 400 && parseError
            ? JSON.stringify({ message: parseError })
            : answer !== 'hang' && !tooLarge
              ? (answer.body ?? '')
              : '',
        )
      }
      if (this.options.delayMs) setTimeout(send, this.options.delayMs)
      else send()
    })
  }
}
