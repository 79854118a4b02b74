/**
 * Uploads parsed on the worker thread give exactly the rows, and the refusals, that parsing in
 * place gives (service/decision-parse-pool.ts), gzip uploads inflated on the worker included;
 * a stopped pool still parses, in place.
 */
import { gzipSync } from 'node:zlib'
import { afterAll, describe, expect, it } from 'vitest'
import { HttpError, inflateBody, utf8Text } from '../../core/http/index.js'
import { createLogger } from '../../core/log.js'
import { decisionsFromBatch } from '../../service/decision-events.js'
import { DecisionParsePool } from '../../service/decision-parse-pool.js'

const context = { tokenSystemId: null, receivedUs: 1_700_000_000_000_000, maxEvents: 100 }

function upload(n: number): string {
  const events = Array.from(
    { length: n },
    (_, i) =>
      `{"decision_id":"d${i}","labels":{"system-id":"s${i % 3}"},"path":"/app/allow","result":${i % 2 === 0},` +
      `"req_id":18446744073709551615,"note":"tab\\there","timestamp":"2024-05-01T00:00:0${i % 10}.123456789Z"}`,
  )
  return `[ ${events.join(' ,\n')} ]`
}

const refusal = async (run: () => Promise<unknown>) => {
  try {
    await run()
  } catch (err) {
    if (err instanceof HttpError) return { status: err.status, code: err.code, message: err.message }
    throw err
  }
  throw new Error('not refused')
}

describe('DecisionParsePool', () => {
  // Every upload goes to the worker.
  const pool = new DecisionParsePool(createLogger({ level: 'silent' }), 1)
  afterAll(() => pool.close())

  it('answers the rows parsing in place answers, numbers and escapes kept', async () => {
    const text = upload(40)
    const rows = await pool.parse(text, context)
    expect(rows).toHaveLength(40)
    expect(rows).toEqual(decisionsFromBatch(text, context))
    expect(rows[1]).toMatchObject({
      decisionId: 'd1',
      systemId: 's1',
      path: 'app/allow',
      resultKind: 'DENIED',
    })
    expect(rows[1]!.raw).toContain('18446744073709551615')
    // Several at once, each its own rows.
    const texts = [upload(3), upload(7), upload(1), upload(12)]
    const all = await Promise.all(texts.map((t) => pool.parse(t, context)))
    expect(all.map((r) => r.length)).toEqual([3, 7, 1, 12])
    expect(pool.counts).toEqual({ offThread: 5, inPlace: 0 })
  })

  it('refuses what parsing in place refuses, with the same status and message', async () => {
    const inPlace = async (text: string) => decisionsFromBatch(text, context)
    for (const text of [upload(101), '[{"decision_id":5}]', '{"not":"an array"}', '[{"a":1},']) {
      expect(await refusal(() => pool.parse(text, context))).toEqual(await refusal(() => inPlace(text)))
    }
    expect(pool.counts.inPlace).toBe(0)
  })

  it('inflates gzip uploads on the worker, with the rows and refusals of readBodyText in place', async () => {
    const gzipPool = new DecisionParsePool(createLogger({ level: 'silent' }), 1, 1)
    const inPlacePool = new DecisionParsePool(createLogger({ level: 'silent' }), 1e9, 1e9)
    try {
      // What the route did before: inflate on the event loop (an unlabelled gzip inside too), check UTF-8, parse.
      const before = async (gzip: Buffer, maxBytes: number) => {
        let bytes = await inflateBody(gzip, 'gzip', maxBytes)
        if (bytes[0] === 0x1f && bytes[1] === 0x8b) bytes = await inflateBody(bytes, 'gzip', maxBytes)
        return decisionsFromBatch(utf8Text(bytes), context)
      }
      const text = upload(40)
      const rows = await gzipPool.parseGzip(gzipSync(text), 1 << 20, context)
      expect(rows).toEqual(decisionsFromBatch(text, context))
      expect(await gzipPool.parseGzip(gzipSync(gzipSync(text)), 1 << 20, context)).toEqual(rows)
      expect(gzipPool.counts).toEqual({ offThread: 2, inPlace: 0 })
      const cases: [Buffer, number][] = [
        [Buffer.from('not gzip at all'), 1 << 20], // 400 corrupt
        [gzipSync(text).subarray(0, 40), 1 << 20], // 400 truncated
        [gzipSync(text), 100], // 413 inflates past the limit
        [gzipSync(Buffer.from([0x5b, 0xff, 0x5d])), 1 << 20], // 400 not UTF-8
        [gzipSync(upload(101)), 1 << 20], // 413 too many events
        [gzipSync('{"not":"an array"}'), 1 << 20], // 400
      ]
      for (const [gzip, maxBytes] of cases) {
        const expected = await refusal(() => before(gzip, maxBytes))
        expect(await refusal(() => gzipPool.parseGzip(gzip, maxBytes, context))).toEqual(expected)
        expect(await refusal(() => inPlacePool.parseGzip(gzip, maxBytes, context))).toEqual(expected)
      }
      expect(gzipPool.counts.inPlace).toBe(0)
      expect(inPlacePool.counts.offThread).toBe(0)
    } finally {
      await gzipPool.close()
      await inPlacePool.close()
    }
  })

  it('parses in place once stopped', async () => {
    const stopped = new DecisionParsePool(createLogger({ level: 'silent' }), 10)
    await stopped.close()
    expect(await stopped.parse(upload(2), context)).toEqual(decisionsFromBatch(upload(2), context))
    expect(stopped.counts).toEqual({ offThread: 0, inPlace: 1 })
  })
})
