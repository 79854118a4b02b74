import { describe, expect, it } from 'vitest'
import { decisionItemText } from '../../../service/routes/decisions.js'
import type { StoredDecision } from '../../../store/service/index.js'

const stored = (raw: string): StoredDecision => ({
  seq: 7,
  decisionId: 'd',
  systemId: 's',
  path: 'p',
  resultKind: 'ALLOWED',
  tsUs: 1_714_521_600_000_000,
  receivedUs: 1_714_521_600_000_000,
  raw,
})

describe('decision items', () => {
  it('splices the added fields into the stored text, numbers untouched', () => {
    const text = decisionItemText(stored('{"decision_id":"d","req_id":18446744073709551615,"f":1.50}'), {
      compact: false,
    })
    expect(text).toMatch(
      /^\{"decision_id":"d","req_id":18446744073709551615,"f":1.50,"cursor":"[\w-]+","system_id":"s","result_kind":"ALLOWED","received":"2024-05-01T00:00:00.000Z","Decision":"(?:[^"\\]|\\.)*","processed":"2024-05-01T00:00:00.000Z"\}$/,
    )
    // The spec's DecisionRecord: the decision as JSON text, exact, and when it was processed.
    expect(JSON.parse(text).Decision).toBe('{"decision_id":"d","req_id":18446744073709551615,"f":1.50}')
  })

  it('never emits a key twice when the event carries a field the service adds', () => {
    const text = decisionItemText(stored('{"decision_id":"d","cursor":"theirs","n":18446744073709551615}'), {
      compact: false,
    })
    expect(text.match(/"cursor"/g)).toHaveLength(1)
    expect(text).toContain('"n":18446744073709551615')
    expect(JSON.parse(text).cursor).not.toBe('theirs')
  })

  it('compacts and trims through the lossless path', () => {
    const raw = '{"decision_id":"d","input":{"big":"xxxxxxxxxxxxxxxxxxxx"},"result":true,"metrics":{"t":1}}'
    const compact = JSON.parse(decisionItemText(stored(raw), { compact: true }))
    expect(Object.keys(compact).sort()).toEqual([
      'Decision',
      'cursor',
      'decision_id',
      'processed',
      'received',
      'result_kind',
      'system_id',
    ])
    expect(JSON.parse(compact.Decision)).toEqual({ decision_id: 'd' })
    const trimmed = JSON.parse(decisionItemText(stored(raw), { compact: false, inputMaxBytes: 10 }))
    expect(trimmed.input).toBeUndefined()
    expect(JSON.parse(trimmed.Decision)).toEqual({
      decision_id: 'd',
      result: true,
      metrics: { t: 1 },
      filtered_fields: ['input'],
    })
    expect(trimmed.result).toBe(true)
    expect(trimmed.filtered_fields).toEqual(['input'])
  })
})
