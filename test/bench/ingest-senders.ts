/**
 * The senders of the service-ingest bench, in a process of their own (forked by
 * service-ingest.bench.ts), so that the service's process pays only the server side of ingest and
 * its CPU per event compares with raw's. Over IPC, per round:
 *  - `prepare`: builds and gzips the round's batches (not timed), answers `ready`;
 *  - `go`: SENDERS concurrent posters send them (bounded by count and by `limitMs`), answers with
 *    events stored, seconds taken and this process's CPU.
 * Exits when the parent disconnects, and after MAX_LIFE_MS in any case.
 */
import { gzipSync } from 'node:zlib'
import { Pool } from 'undici'
import { BATCH, batches } from './ingest-events.js'

export const SENDERS = 4

/** The parent's messages. */
export type SenderCommand =
  | { kind: 'prepare'; prefix: string; count: number; baseMs: number }
  | { kind: 'go'; url: string; token: string; limitMs: number }

/** This process's answers. */
export type SenderReply =
  | { kind: 'ready' }
  | { kind: 'done'; stored: number; seconds: number; cpuUs: number }
  | { kind: 'failed'; message: string }

// A bench run is a few minutes at most; a sender left behind by a crashed parent goes away.
const MAX_LIFE_MS = 10 * 60_000

let bodies: Buffer[] = []

async function send(url: string, token: string, limitMs: number): Promise<SenderReply> {
  const pool = new Pool(url, { connections: SENDERS, pipelining: 1 })
  let next = 0
  let stored = 0
  const cpu = process.cpuUsage()
  const started = performance.now()
  const sender = async () => {
    while (next < bodies.length && performance.now() - started < limitMs) {
      const body = bodies[next++]!
      const res = await pool.request({
        path: '/v1/logs',
        method: 'POST',
        headers: {
          authorization: `Bearer ${token}`,
          'content-type': 'application/json',
          'content-encoding': 'gzip',
        },
        body,
      })
      const text = await res.body.text()
      if (res.statusCode !== 200) throw new Error(`ingest answered ${res.statusCode}: ${text}`)
      stored += BATCH
    }
  }
  try {
    await Promise.all(Array.from({ length: SENDERS }, sender))
  } finally {
    await pool.close()
  }
  const seconds = (performance.now() - started) / 1000
  const used = process.cpuUsage(cpu)
  return { kind: 'done', stored, seconds, cpuUs: used.user + used.system }
}

if (process.send) {
  const reply = (m: SenderReply) => process.send?.(m)
  setTimeout(() => process.exit(1), MAX_LIFE_MS).unref()
  process.on('disconnect', () => process.exit(0))
  process.on('message', (m: SenderCommand) => {
    if (m.kind === 'prepare') {
      bodies = batches(m.prefix, m.count, m.baseMs).map((t) => gzipSync(t))
      reply({ kind: 'ready' })
    } else {
      send(m.url, m.token, m.limitMs).then(reply, (err: Error) =>
        reply({ kind: 'failed', message: err.message }),
      )
    }
  })
}
