/**
 * A real full disk under the decision-log buffer: a 2 MiB tmpfs (root with CAP_SYS_ADMIN; the
 * test is skipped with the reason elsewhere) filled to the last byte. Intake answers 503 with
 * Retry-After, `/health/ready` goes 503 naming SQLITE_FULL, each refusal is one log line without
 * a stack, and once space is freed readiness recovers by itself (a probe write) and intake
 * stores again.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { request } from 'undici'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { decisionLogsExtension } from '../../../relay/decision-logs/index.js'
import type { RunningRelay } from '../../../relay/relay.js'
import { capturedLogger } from '../../support/captured-logger.js'
import { makeEvents } from '../../support/logs-agent.js'
import { fillDisk, mountSmallDisk } from '../../support/small-disk.js'
import { eventually, relayConfig, startTestRelay } from '../helpers.js'

let dir: string
let disk: string
let mounted: { unmount(): void } | undefined
let relay: RunningRelay | undefined
const { logger, lines } = capturedLogger('info')

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-full-disk-'))
  disk = join(dir, 'disk')
  mkdirSync(disk)
  lines.length = 0
})
afterEach(async () => {
  try {
    await relay?.stop()
  } finally {
    relay = undefined
    mounted?.unmount()
    mounted = undefined
    rmSync(dir, { recursive: true, force: true })
  }
})

async function post(url: string, from: number) {
  const res = await request(`${url}/v1/logs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body: gzipSync(`[${makeEvents('full-disk', from, 20).join(',')}]`),
  })
  return { status: res.statusCode, retryAfter: res.headers['retry-after'], text: await res.body.text() }
}

async function ready(url: string) {
  const res = await request(`${url}/health/ready`)
  return { status: res.statusCode, body: (await res.body.json()) as { reasons?: string[] } }
}

describe('decision-log buffer on a full disk', () => {
  it('is not ready while the disk is full, logs each refusal as one line, and recovers when space is freed', async (ctx) => {
    const small = mountSmallDisk(disk)
    if (typeof small === 'string') return ctx.skip(small)
    mounted = small
    relay = await startTestRelay(relayConfig('{}'), join(disk, 'relay'), {
      extensions: [decisionLogsExtension],
      logger,
    })
    expect((await post(relay.url, 0)).status).toBe(204)
    expect((await ready(relay.url)).status).toBe(200)

    fillDisk(join(disk, 'filler'))
    let refused: Awaited<ReturnType<typeof post>> | undefined
    for (let i = 1; i <= 50 && !refused; i++) {
      const answer = await post(relay.url, i * 20)
      if (answer.status !== 204) refused = answer
    }
    expect(refused?.status).toBe(503)
    expect(refused?.retryAfter).toBe('5')
    expect(refused?.text).toMatch(/SQLITE_FULL/)
    const notReady = await ready(relay.url)
    expect(notReady.status).toBe(503)
    expect(notReady.body.reasons?.join('\n')).toMatch(
      /decision-log buffer .* cannot be written \(SQLITE_FULL/,
    )

    // Expected refusals: one line each, no stack anywhere.
    expect((await post(relay.url, 5000)).status).toBe(503)
    const parsed = lines.map((l) => JSON.parse(l) as Record<string, unknown>)
    const refusals = parsed.filter((l) => l.msg === 'request' && l.path === '/v1/logs' && l.status === 503)
    expect(refusals.length).toBeGreaterThanOrEqual(2)
    for (const line of refusals) expect(String(line.reason)).toMatch(/SQLITE_FULL/)
    expect(parsed.filter((l) => l.msg === 'storage cannot be written; not ready')).toHaveLength(1)
    expect(lines.join('\n')).not.toMatch(/"stack"/)

    rmSync(join(disk, 'filler'))
    await eventually(async () => (await ready(relay!.url)).status === 200, 10_000, 'ready again')
    expect((await post(relay.url, 6000)).status).toBe(204)
  })
})
