import { parse, stringify } from 'lossless-json'
import { describe, expect, it } from 'vitest'
import { HttpError } from '../../core/http/index.js'
import {
  decisionsFromBatch,
  decisionsFromBatchYielding,
  resultKindOf,
  timestampMicros,
} from '../../service/decision-events.js'

const context = { tokenSystemId: null, receivedUs: 42, maxEvents: 10 }

function status(fn: () => unknown): number | undefined {
  try {
    fn()
  } catch (err) {
    return err instanceof HttpError ? err.status : -1
  }
  return undefined
}

describe('decision events', () => {
  it('derives result kinds as documented', () => {
    expect(resultKindOf({ result: true })).toBe('ALLOWED')
    expect(resultKindOf({ result: false })).toBe('DENIED')
    expect(resultKindOf({ result: { allowed: true, reason: 'x' } })).toBe('ALLOWED')
    expect(resultKindOf({ result: { allowed: false } })).toBe('DENIED')
    expect(resultKindOf({ result: true, error: { code: 'eval_error' } })).toBe('ERROR')
    expect(resultKindOf({ result: { allowed: 'yes' } })).toBe('UNKNOWN')
    expect(resultKindOf({ result: [1] })).toBe('UNKNOWN')
    expect(resultKindOf({})).toBe('UNKNOWN')
    expect(resultKindOf({ result: false, error: null })).toBe('DENIED')
  })

  it('reads RFC 3339 timestamps to the microsecond', () => {
    expect(timestampMicros('2024-05-01T12:00:00Z')).toBe(Date.parse('2024-05-01T12:00:00Z') * 1000)
    expect(timestampMicros('2024-05-01T12:00:00.123456789Z')).toBe(
      Date.parse('2024-05-01T12:00:00Z') * 1000 + 123456,
    )
    expect(timestampMicros('2024-05-01T14:00:00.5+02:00')).toBe(
      Date.parse('2024-05-01T12:00:00Z') * 1000 + 500000,
    )
    expect(timestampMicros('yesterday')).toBeUndefined()
    expect(timestampMicros(17)).toBeUndefined()
  })

  it('keeps numbers beyond 2^53 and unknown fields exactly', () => {
    const text =
      '[{"decision_id":"a","req_id":18446744073709551615,"x_new":{"f":1.10},"path":"/app/allow","result":true}]'
    const [row] = decisionsFromBatch(text, context)
    expect(row!.raw).toBe(
      '{"decision_id":"a","req_id":18446744073709551615,"x_new":{"f":1.10},"path":"/app/allow","result":true}',
    )
    expect(row!.path).toBe('app/allow')
    expect(row!.tsUs).toBe(42)
  })

  it('stores each event compact, as the lossless parser would write it, with or without escapes', () => {
    const events = [
      '{ "decision_id" : "a",\n "input": {"ua": "curl/8.5 (x86_64) a  b", "n": [1.50, 2e3]},\t"result": true }',
      '{"decision_id":"b","input":{"q":"say \\"hi\\" \\u00e9 \\/ x"},"req_id":18446744073709551615}',
      '{"decision_id":"c","result":{"allowed":false,"reason":"no role { here }"}}',
    ]
    const rows = decisionsFromBatch(`[${events.join(' , ')}]`, context)
    expect(rows.map((r) => r.raw)).toEqual(events.map((e) => stringify(parse(e)) as string))
    expect(rows[0]!.raw).toBe(
      '{"decision_id":"a","input":{"ua":"curl/8.5 (x86_64) a  b","n":[1.50,2e3]},"result":true}',
    )
    expect(rows[1]!.raw).toContain('"say \\"hi\\" é / x"')
    expect(rows.map((r) => r.resultKind)).toEqual(['ALLOWED', 'UNKNOWN', 'DENIED'])
  })

  it('reads the fields the splitter recorded exactly as a parse of the event reads them', () => {
    // Each event goes through twice: plain (fields from the splitter's spans) and with an escape
    // added in a field nobody reads, which sends it down the parse path. Both rows must agree.
    const outcomes = [
      '"result":true',
      '"result":false',
      '"result":{"allowed":true,"why":{"allowed":false}}',
      '"result":{"allowed":false}',
      '"result":{"allowed":"yes"}',
      '"result":{"nested":{"allowed":true}}',
      '"result":[true]',
      '"result":null',
      '"result":true,"error":null',
      '"result":true,"error":{"code":"eval_error"}',
      '"error":"boom","result":{"allowed":true}',
      '"context":{"result":true,"error":1}',
      '',
    ]
    const others = [
      '"decision_id":"d1","path":"//app/allow","timestamp":"2024-05-01T12:00:00.5Z"',
      '"path":7,"labels":{"system-id":"s1","id":"agent"},"timestamp":"yesterday"',
      '"labels":{"system-id":3,"nested":{"system-id":"no"}},"path":"x","decision_id":null',
      '"labels":"s1","input":{"path":"no","labels":{"system-id":"no"}}',
    ]
    const events: string[] = []
    for (const outcome of outcomes) {
      for (const other of others) events.push(`{ ${[other, outcome].filter(Boolean).join(' , ')} }`)
    }
    const escaped = events.map((e) => e.replace('{', '{"note":"\\u0041",'))
    const plain = decisionsFromBatch(`[${events.join(',')}]`, { ...context, maxEvents: 1000 })
    const parsed = decisionsFromBatch(`[${escaped.join(',')}]`, { ...context, maxEvents: 1000 })
    const fields = ({ raw: _raw, decisionId, ...rest }: (typeof plain)[number]) => ({
      ...rest,
      decisionId: decisionId.startsWith('sha256:') ? 'digest' : decisionId,
    })
    expect(plain.map(fields)).toEqual(parsed.map(fields))
    expect(new Set(plain.map((row) => row.resultKind))).toEqual(
      new Set(['ALLOWED', 'DENIED', 'ERROR', 'UNKNOWN']),
    )
    expect(plain.slice(0, 4).map((row) => [row.path, row.systemId])).toEqual([
      ['app/allow', null],
      [null, 's1'],
      ['x', null],
      [null, null],
    ])
  })

  it('gives events without a decision id a digest id, equal for equal events', () => {
    const rows = decisionsFromBatch('[{"result":1},{"result":1},{"result":2}]', context)
    expect(rows[0]!.decisionId).toMatch(/^sha256:[0-9a-f]{64}$/)
    expect(rows[0]!.decisionId).toBe(rows[1]!.decisionId)
    expect(rows[2]!.decisionId).not.toBe(rows[0]!.decisionId)
  })

  it('attributes to the token system before the label', () => {
    const text = '[{"decision_id":"a","labels":{"system-id":"from-label"}}]'
    expect(decisionsFromBatch(text, context)[0]!.systemId).toBe('from-label')
    expect(decisionsFromBatch(text, { ...context, tokenSystemId: 'tok' })[0]!.systemId).toBe('tok')
  })

  it('refuses whole batches that are not arrays of objects', () => {
    expect(status(() => decisionsFromBatch('{"decision_id":"a"}', context))).toBe(400)
    expect(status(() => decisionsFromBatch('[{"decision_id":"a"}, 3]', context))).toBe(400)
    expect(status(() => decisionsFromBatch('[{"decision_id":"a"}', context))).toBe(400)
    expect(status(() => decisionsFromBatch('[{"decision_id":7}]', context))).toBe(400)
    expect(status(() => decisionsFromBatch(JSON.stringify(Array(11).fill({})), context))).toBe(413)
    expect(() => decisionsFromBatch('[{"decision_id":"a"}, 3]', context)).toThrow(/event 1/)
  })

  it('refuses by the shared event rules, naming the event and field', () => {
    const refused = (text: string) => {
      try {
        decisionsFromBatch(text, context)
      } catch (err) {
        return { status: (err as HttpError).status, message: (err as Error).message }
      }
      return undefined
    }
    expect(refused('[{"decision_id":"a"},{"decision_id":"b","input":{"k":1,"k":1}}]')).toEqual({
      status: 400,
      message: expect.stringMatching(/event 1, field input\.k: duplicate key "k"/),
    })
    expect(refused('[{"decision_id":"a","decision_id":"a"}]')?.message).toMatch(
      /event 0, field decision_id: duplicate key/,
    )
    expect(refused(`[{"decision_id":"${'x'.repeat(257)}"}]`)?.message).toMatch(
      /event 0, field decision_id: decision_id must be a non-empty string of at most 256 characters/,
    )
    expect(refused('[{"decision_id":""}]')?.status).toBe(400)
    expect(refused(`[{"decision_id":"${'x'.repeat(256)}"},{"decision_id":null}]`)).toBeUndefined()
  })

  it('checks the event cap while reading: what follows the first event past the cap is never read', () => {
    // Not JSON after the 11th event: a refusal of 413 (not 400) shows the rest was never parsed.
    const body = `[${'{},'.repeat(11)} this is not JSON and is never read`
    expect(status(() => decisionsFromBatch(body, context))).toBe(413)
    const eightMiB = `[${'{},'.repeat((8 * 1024 * 1024) / 3 - 1)}{}]`
    expect(status(() => decisionsFromBatch(eightMiB, { ...context, maxEvents: 100_000 }))).toBe(413)
  })

  it('yields to the event loop while parsing a large batch, and gives the same rows', async () => {
    const events = Array.from(
      { length: 3000 },
      (_, i) => `{"decision_id":"d${i}","timestamp":"2024-01-01T00:00:00Z","input":"${'x'.repeat(1000)}"}`,
    )
    const text = `[${events.join(',')}]`
    const big = { ...context, maxEvents: 10_000 }
    let otherWorkRan = false
    setImmediate(() => {
      otherWorkRan = true
    })
    const rows = await decisionsFromBatchYielding(text, big)
    // Without a yield, the promise settles before the immediate callback runs.
    expect(otherWorkRan).toBe(true)
    expect(rows).toEqual(decisionsFromBatch(text, big))
    await expect(decisionsFromBatchYielding('[{"decision_id":7}]', context)).rejects.toMatchObject({
      status: 400,
    })
  })
})
