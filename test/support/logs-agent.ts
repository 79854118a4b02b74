/**
 * An agent simulator for decision logs: makes OPA-shaped events (with a `req_id` beyond 2^53 so
 * any lossy re-encoding shows) and posts them as OPA does: gzip JSON arrays in chunks of at most
 * 32 KiB compressed, `Content-Type: application/json`, `Content-Encoding: gzip`.
 */
import { gzipSync } from 'node:zlib'
import { request } from 'undici'

/** The decision id of event `i` of agent `agent`. */
export const decisionId = (agent: string, i: number) => `${agent}-${String(i).padStart(8, '0')}`

/** A `req_id` above 2^53 that encodes `i`: JSON.parse would round it. */
export const bigReqId = (i: number) => (2n ** 63n + BigInt(i)).toString()

/**
 * One OPA-shaped decision event as JSON text, about `size` bytes.
 * @example makeEvent('a', 1) // '{"labels":{"id":"a","version":"1.4.0"},"decision_id":"a-00000001",…}'
 */
export function makeEvent(agent: string, i: number, size = 1000): string {
  const head = `{"labels":{"id":"${agent}","version":"1.4.0"},"decision_id":"${decisionId(agent, i)}","path":"http/authz/allow","input":{"method":"GET","path":["api","v1","users","${i}"],"user":"user-${i % 97}","roles":["reader","dev"],"note":"`
  const tail = `"},"result":${i % 3 === 0},"requested_by":"127.0.0.1:5${i % 10000}","timestamp":"2024-06-01T12:00:00.${String(i % 1e9).padStart(9, '0')}Z","metrics":{"timer_rego_query_eval_ns":${1000 + i}},"req_id":${bigReqId(i)}}`
  const fill = Math.max(0, size - head.length - tail.length)
  // Varied filler so gzip ratios look like real inputs, not a run of one letter.
  let note = ''
  for (let k = 0; note.length < fill; k++) note += `${(i * 31 + k * 17) % 1000}-`
  return head + note.slice(0, fill) + tail
}

/** Events `from..from+count-1` of one agent. */
export function makeEvents(agent: string, from: number, count: number, size = 1000): string[] {
  return Array.from({ length: count }, (_, k) => makeEvent(agent, from + k, size))
}

/**
 * Gzip chunks of at most `limit` compressed bytes, in order, as OPA's encoder produces them
 * (a lone event larger than the limit is sent alone).
 */
export function gzipChunks(events: string[], limit = 32 * 1024): Buffer[] {
  const chunks: Buffer[] = []
  let start = 0
  let guess = 64
  while (start < events.length) {
    let count = Math.min(guess, events.length - start)
    let body = gzipSync(`[${events.slice(start, start + count).join(',')}]`)
    while (body.length > limit && count > 1) {
      count = Math.max(1, Math.floor(count / 2))
      body = gzipSync(`[${events.slice(start, start + count).join(',')}]`)
    }
    chunks.push(body)
    start += count
    guess = body.length < limit * 0.6 ? guess * 2 : count
  }
  return chunks
}

/** A `[a,b,...]` gzip body (for one request of a chosen size). */
export const gzipArray = (events: string[]) => gzipSync(`[${events.join(',')}]`)

/** The answer to one post. */
export interface PostResult {
  status: number
  retryAfter: string | undefined
  body: string
}

/** Posts a body to the relay's logs URL; `gzip: false` sends identity. */
export async function postLogs(
  url: string,
  body: Buffer | string,
  options: { gzip?: boolean } = {},
): Promise<PostResult> {
  const gz = options.gzip ?? true
  const res = await request(url, {
    method: 'POST',
    headers: { 'content-type': 'application/json', ...(gz ? { 'content-encoding': 'gzip' } : {}) },
    body,
  })
  const text = await res.body.text()
  const retryAfter = res.headers['retry-after']
  return {
    status: res.statusCode,
    retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
    body: text,
  }
}

/**
 * Posts all chunks with `concurrency` requests in flight, retrying each non-2xx after a short
 * pause (as OPA keeps its copy and retries), until every chunk is acknowledged or `deadline`.
 */
export async function postAll(
  url: string,
  chunks: Buffer[],
  concurrency = 4,
  deadline = Date.now() + 60_000,
): Promise<number> {
  let next = 0
  let refusals = 0
  const worker = async () => {
    while (next < chunks.length) {
      const chunk = chunks[next++]!
      for (;;) {
        const res = await postLogs(url, chunk)
        if (res.status >= 200 && res.status < 300) break
        refusals++
        if (Date.now() > deadline) throw new Error(`gave up posting: last status ${res.status} ${res.body}`)
        await new Promise((r) => setTimeout(r, 20))
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return refusals
}
