/**
 * A small decision-log and status receiver for `regent exec` tests, on 127.0.0.1: serves one
 * bundle at `/bundles/authz`, records the gunzipped `POST /logs` events and the `POST /status`
 * reports, and can refuse the logs (503) on demand.
 */
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { gunzipSync } from 'node:zlib'

export interface LoggedEvent {
  labels: Record<string, string>
  decision_id: string
  bundles?: Record<string, { revision: string }>
  path: string
  input: unknown
  result?: unknown
  timestamp: string
}

/** Serves one bundle; records decision-log events and status reports; can refuse the logs. */
export class Receiver {
  events: LoggedEvent[] = []
  /** The gunzipped body texts, to check numbers keep every digit. */
  logTexts: string[] = []
  statuses: Array<Record<string, unknown>> = []
  logPosts: Array<{ encoding: string | undefined; type: string | undefined }> = []
  refuseLogs = false
  url = ''
  private server!: Server

  constructor(private readonly bundle: Uint8Array) {}

  async start(): Promise<void> {
    this.server = createServer((req, res) => {
      const chunks: Buffer[] = []
      req.on('data', (c: Buffer) => chunks.push(c))
      req.on('end', () => {
        const body = Buffer.concat(chunks)
        if (req.method === 'GET' && req.url === '/bundles/authz') {
          res.writeHead(200, { 'Content-Type': 'application/gzip', ETag: '"r1"' }).end(this.bundle)
        } else if (req.method === 'POST' && req.url === '/logs') {
          if (this.refuseLogs) {
            res.writeHead(503).end()
            return
          }
          this.logPosts.push({
            encoding: req.headers['content-encoding'],
            type: req.headers['content-type'],
          })
          const text = gunzipSync(body).toString('utf8')
          this.logTexts.push(text)
          this.events.push(...(JSON.parse(text) as LoggedEvent[]))
          res.writeHead(200).end()
        } else if (req.method === 'POST' && req.url === '/status') {
          this.statuses.push(JSON.parse(body.toString('utf8')) as Record<string, unknown>)
          res.writeHead(200).end()
        } else {
          res.writeHead(404).end()
        }
      })
    })
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
  }

  stop(): Promise<void> {
    this.server.closeAllConnections()
    return new Promise((resolve) => this.server.close(() => resolve()))
  }
}
