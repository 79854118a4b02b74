import { gzipSync } from 'node:zlib'
import { afterEach, describe, expect, it } from 'vitest'
import { createLogger } from '../../../core/log.js'
import { ParsePool } from '../../../plugins/logs/parse-pool.js'
import { parseUpload } from '../../../plugins/logs/parse-upload.js'
import { gzipArray, makeEvents } from '../../support/logs-agent.js'

const logger = createLogger({ level: 'silent' })
let pool: ParsePool | undefined
afterEach(async () => {
  await pool?.close()
  pool = undefined
})

describe('ParsePool', () => {
  it('parses bodies on a worker thread exactly as on the main thread', async () => {
    pool = new ParsePool(1, logger)
    expect(pool.workers).toBe(1)
    const bodies = Array.from({ length: 30 }, (_, k) => gzipArray(makeEvents(`agent-${k}`, k * 10, 10)))
    const parsed = await Promise.all(bodies.map((b) => pool!.parse(b, 'gzip', 1e7)))
    expect(parsed).toEqual(bodies.map((b) => parseUpload(b, 'gzip', 1e7)))
    expect(parsed[3]).toMatchObject({ ok: true, split: { count: 10, malformed: 0 } })
    expect(pool.parsedOnWorkers).toBe(30)
  })

  it.each([0, 1])('refuses bad bodies with the same reasons (%i workers)', async (workers) => {
    pool = new ParsePool(workers, logger)
    expect(await pool.parse(gzipSync(Buffer.alloc(2_000_000, 0x20)), 'gzip', 1_000_000)).toMatchObject({
      ok: false,
      status: 400,
      message: expect.stringMatching(/inflates to more than 1000000 bytes/),
    })
    expect(await pool.parse(Buffer.from('plain'), 'gzip', 1e6)).toMatchObject({
      status: 400,
      message: expect.stringMatching(/not valid gzip/),
    })
    expect(await pool.parse(Buffer.from('[1]'), 'br', 1e6)).toMatchObject({ status: 415 })
    expect(await pool.parse(Buffer.from('[{"a":1} x'), 'identity', 1e6)).toMatchObject({
      status: 400,
      message: expect.stringMatching(/not a JSON array of decision events/),
    })
  })

  it('keeps working on the main thread once closed', async () => {
    pool = new ParsePool(1, logger)
    await pool.close()
    expect(await pool.parse(gzipArray(makeEvents('a', 0, 2)), 'gzip', 1e6)).toMatchObject({ ok: true })
    expect(pool.parsedOnWorkers).toBe(0)
  })
})
