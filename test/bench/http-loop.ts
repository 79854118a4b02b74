/**
 * A bounded HTTP load loop for benchmarks: `requests` requests over `connections` keep-alive
 * connections, stopping early at `maxMs`; prints requests per second and p50/p99 latency.
 */
import { Agent, request } from 'undici'

export interface LoopOptions {
  requests?: number
  connections?: number
  maxMs?: number
  headers?: Record<string, string>
}

export interface LoopFigures {
  perSecond: number
  p50: number
  p99: number
  count: number
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor(sorted.length * p))] ?? 0
}

/** POSTs `body` (GET when undefined) to `url` until the count or the time runs out; prints one line. */
export async function httpLoop(
  label: string,
  url: string,
  body: string | undefined,
  options: LoopOptions = {},
): Promise<LoopFigures> {
  const { requests = 3000, connections = 8, maxMs = 20_000, headers = {} } = options
  const agent = new Agent({ connections })
  const samples: number[] = []
  const deadline = performance.now() + maxMs
  let next = 0
  const started = performance.now()
  try {
    await Promise.all(
      Array.from({ length: connections }, async () => {
        while (next < requests && performance.now() < deadline) {
          next++
          const t = performance.now()
          const res = await request(url, {
            method: body === undefined ? 'GET' : 'POST',
            headers: { 'content-type': 'application/json', ...headers },
            ...(body !== undefined ? { body } : {}),
            dispatcher: agent,
          })
          const text = await res.body.text()
          if (res.statusCode !== 200)
            throw new Error(`${label}: HTTP ${res.statusCode}: ${text.slice(0, 200)}`)
          samples.push(performance.now() - t)
        }
      }),
    )
  } finally {
    await agent.close()
  }
  const total = performance.now() - started
  samples.sort((a, b) => a - b)
  const figures = {
    perSecond: Math.round((samples.length / total) * 1000),
    p50: percentile(samples, 0.5),
    p99: percentile(samples, 0.99),
    count: samples.length,
  }
  console.log(
    `   ${label.padEnd(52)} ${String(figures.perSecond).padStart(6)} req/s  p50 ${figures.p50.toFixed(2)} ms  p99 ${figures.p99.toFixed(2)} ms  (${figures.count} requests)`,
  )
  return figures
}
