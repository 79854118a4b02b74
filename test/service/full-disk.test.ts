/**
 * The service's SQLite database on a real full disk (a 2 MiB tmpfs filled to the last byte;
 * skipped with the reason where it cannot be mounted): a write answers 503 with Retry-After
 * (not a 500 with a stack trace), `/health/ready` answers 503 naming SQLITE_FULL, and once
 * space is freed readiness recovers by itself and writes succeed again.
 */
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseConfig } from '../../core/config.js'
import { type RunningService, serviceSectionSchema, startService } from '../../service/index.js'
import { eventually } from '../relay/helpers.js'
import { capturedLogger } from '../support/captured-logger.js'
import { makeEvents } from '../support/logs-agent.js'
import { fillDisk, mountSmallDisk } from '../support/small-disk.js'

const ADMIN = 'full-disk-admin-token-0123456789'
let dir: string
let disk: string
let mounted: { unmount(): void } | undefined
let service: RunningService | undefined
const { logger, lines } = capturedLogger('info')

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-service-full-'))
  disk = join(dir, 'disk')
  mkdirSync(disk)
  lines.length = 0
})
afterEach(async () => {
  try {
    await service?.stop()
  } finally {
    service = undefined
    mounted?.unmount()
    mounted = undefined
    rmSync(dir, { recursive: true, force: true })
  }
})

const headers = { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' }

async function postDecisions(url: string, from: number): Promise<Response> {
  return fetch(`${url}/v1/logs`, {
    method: 'POST',
    headers,
    body: `[${makeEvents('full-disk', from, 20).join(',')}]`,
  })
}

describe('service database on a full disk', () => {
  it('answers writes 503, is not ready while the disk is full, and recovers when space is freed', async (ctx) => {
    const small = mountSmallDisk(disk)
    if (typeof small === 'string') return ctx.skip(small)
    mounted = small
    service = await startService({
      config: parseConfig('{}', serviceSectionSchema),
      logger,
      addr: '127.0.0.1:0',
      dataDir: join(disk, 'service'),
      adminToken: ADMIN,
      graceMs: 500,
    })
    const url = service.url
    expect((await postDecisions(url, 0)).status).toBe(200)
    expect((await fetch(`${url}/health/ready`)).status).toBe(200)

    fillDisk(join(disk, 'filler'))
    let refused: Response | undefined
    for (let i = 1; i <= 50 && !refused; i++) {
      const res = await postDecisions(url, i * 20)
      if (res.status !== 200) refused = res
    }
    expect(refused?.status).toBe(503)
    expect(refused?.headers.get('Retry-After')).toBe('5')
    expect(await refused?.json()).toMatchObject({
      code: 'service_unavailable',
      message: expect.stringMatching(/disk is full/),
    })
    const notReady = await fetch(`${url}/health/ready`)
    expect(notReady.status).toBe(503)
    expect(((await notReady.json()) as { message: string }).message).toMatch(
      /database .* cannot be written \(SQLITE_FULL/,
    )
    expect(lines.join('\n')).not.toMatch(/"stack"/)

    rmSync(join(disk, 'filler'))
    await eventually(async () => (await fetch(`${url}/health/ready`)).status === 200, 10_000, 'ready again')
    expect((await postDecisions(url, 5000)).status).toBe(200)
  })
})
