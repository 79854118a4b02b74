/**
 * Uploads parsed on the worker thread give exactly the rows, and the refusals, that parsing in
 * place gives (service/decision-parse-pool.ts); a stopped pool still parses, in place.
 */
import { afterAll, describe, expect, it } from 'vitest'
import { HttpError } from '../../core/http/index.js'
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

  it('parses in place once stopped', async () => {
    const stopped = new DecisionParsePool(createLogger({ level: 'silent' }), 10)
    await stopped.close()
    expect(await stopped.parse(upload(2), context)).toEqual(decisionsFromBatch(upload(2), context))
    expect(stopped.counts).toEqual({ offThread: 0, inPlace: 1 })
  })
})
