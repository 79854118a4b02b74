import fc from 'fast-check'
import { parse as parseLossless } from 'lossless-json'
import { describe, expect, it } from 'vitest'
import {
  EventsFormatError,
  MAX_EVENT_DEPTH as MAX_DEPTH,
  splitEvents,
  TooManyEventsError,
} from '../../../core/decision-events/index.js'

// The reference: JSON.parse, plus the event rules (lossless-json refuses duplicate keys with
// different values, which is what mutations of JSON text can produce).
function jsonAccepts(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text)
    parseLossless(text)
    return (
      Array.isArray(value) &&
      value.every(
        (e) =>
          e !== null &&
          typeof e === 'object' &&
          !Array.isArray(e) &&
          (!('decision_id' in e) ||
            e.decision_id === null ||
            (typeof e.decision_id === 'string' && e.decision_id !== '' && e.decision_id.length <= 256)),
      )
    )
  } catch {
    return false
  }
}

function splitAccepts(text: string): boolean {
  try {
    splitEvents(text)
    return true
  } catch (err) {
    expect(err).toBeInstanceOf(EventsFormatError)
    return false
  }
}

describe('splitEvents', () => {
  it('keeps each event byte for byte, including integers beyond 2^53 and number spellings', () => {
    const first =
      '{"decision_id":"a","timestamp":"2024-01-01T00:00:00.123456789Z","req_id":18446744073709551615}'
    const second =
      '{ "labels" : {"id":"agent-7","version":"1.0"}, "decision_id":"b", "timestamp":"t", "result": 1.0e+2 }'
    const { events, malformed } = splitEvents(` [ ${first} ,\n\t${second} ] `)
    expect(events.map((e) => e.text)).toEqual([first, second])
    expect(events[0]).toMatchObject({
      decisionId: 'a',
      timestamp: '2024-01-01T00:00:00.123456789Z',
      agentId: null,
    })
    expect(events[1]).toMatchObject({ decisionId: 'b', timestamp: 't', agentId: 'agent-7' })
    expect(malformed).toBe(0)
  })

  it('counts events without a decision_id or a string timestamp as malformed, and keeps them', () => {
    const body =
      '[{"decision_id":"a"},{"timestamp":"t"},{"decision_id":null,"timestamp":"t"},{"decision_id":"d","timestamp":"t"}]'
    const { events, malformed } = splitEvents(body)
    expect(events).toHaveLength(4)
    expect(malformed).toBe(3)
  })

  it.each([
    [
      'a number',
      '{"decision_id":7}',
      'field decision_id: decision_id must be a non-empty string',
      'a number',
    ],
    ['an object', '{"decision_id":{"a":1}}', 'field decision_id: decision_id must be', 'an object'],
    ['a boolean', '{"decision_id":true}', 'field decision_id: decision_id must be', 'a boolean'],
    ['empty', '{"decision_id":""}', 'field decision_id: decision_id must be', 'an empty string'],
    ['257 characters', `{"decision_id":"${'x'.repeat(257)}"}`, 'field decision_id:', '257 characters'],
    ['escaped, too long', `{"decision_id":"\\u0041${'x'.repeat(256)}"}`, 'field decision_id:', '257'],
    [
      'a duplicate top-level key',
      '{"decision_id":"a","decision_id":"b"}',
      'field decision_id:',
      'duplicate key "decision_id"',
    ],
    ['an escaped duplicate', '{"a":1,"\\u0061":2}', 'field a:', 'duplicate key "a"'],
    ['a nested duplicate', '{"input":{"user":{"n":1,"n":1}}}', 'field input.user.n:', 'duplicate key "n"'],
    ['a duplicate in an array', '{"input":[{},{"k":1,"k":2}]}', 'field input[1].k:', 'duplicate key "k"'],
  ])('refuses an event whose decision_id or keys break the rule: %s', (_what, event, where, why) => {
    const body = `[{"decision_id":"ok"},${event}]`
    let error: EventsFormatError | undefined
    try {
      splitEvents(body)
    } catch (err) {
      error = err as EventsFormatError
    }
    expect(error).toBeInstanceOf(EventsFormatError)
    expect(error!.event).toBe(1)
    expect(error!.message).toMatch(/^event 1, /)
    expect(error!.message).toContain(where)
    expect(error!.message).toContain(why)
  })

  it('finds a duplicate among many keys, escaped or not, in linear time', () => {
    const keys = Array.from({ length: 200_000 }, (_, k) => `"k${k}":${k}`)
    const many = `[{"input":{${keys.join(',')}}}]`
    expect(splitEvents(many).events).toHaveLength(1)
    const late = `[{"input":{${keys.join(',')},"k12345":0}}]`
    expect(() => splitEvents(late)).toThrow('event 0, field input.k12345: duplicate key "k12345"')
    const escaped = `[{"input":{${keys.slice(0, 40).join(',')},"\\u006b7":0}}]`
    expect(() => splitEvents(escaped)).toThrow('duplicate key "k7"')
    // Siblings and nested objects each have keys of their own.
    const siblings = `[{"a":{"x":1,"y":{"x":2,"z":[{"x":3},{"x":4}]}},"b":{"x":5}}]`
    expect(splitEvents(siblings).events).toHaveLength(1)
  })

  it('accepts a decision_id of exactly 256 characters, null, or absent', () => {
    const body = `[{"decision_id":"${'x'.repeat(256)}"},{"decision_id":null},{"a":{"decision_id":7}}]`
    expect(splitEvents(body).events).toHaveLength(3)
  })

  it('stops at the event cap without reading the rest of the body', () => {
    const body = `[${'{},'.repeat(10)}{} ,, not json at all`
    expect(() => splitEvents(body, { maxEvents: 10 })).toThrow(TooManyEventsError)
    expect(splitEvents(`[${'{},'.repeat(9)}{}]`, { maxEvents: 10 }).events).toHaveLength(10)
  })

  it('reads indexed fields only at the top level, and decodes escaped keys and values', () => {
    const body =
      '[{"input":{"decision_id":"inner"},"decision\\u005fid":"x\\"y","labels":{"nested":{"id":"no"},"id":"yes"},"timestamp":"t"}]'
    const [event] = splitEvents(body).events
    expect(event).toMatchObject({ decisionId: 'x"y', agentId: 'yes', timestamp: 't' })
  })

  it.each([
    ['', 'the body is empty'],
    ['{"decision_id":"a"}', 'expected a JSON array of events'],
    ['[1]', 'event 0 is not a JSON object'],
    ['[{"a":1},[]]', 'event 1 is not a JSON object'],
    ['[{"a":1}', 'expected "," or "]" after event 0'],
    ['[{"a":1}] x', 'unexpected text after the array'],
    ['[{"a":01}]', 'expected "," or "}"'],
    ['[{"a":"\u0001"}]', 'control character in a string'],
    ['[{"a":"\\x"}]', 'invalid escape'],
    ['[{"a":tru}]', 'expected a JSON value'],
    ['[{"a":1.}]', 'digits expected after'],
    ['[{"a":"open', 'unterminated string'],
    ['[{a:1}]', 'expected a string key'],
  ])('refuses %j: %s', (body, reason) => {
    expect(() => splitEvents(body)).toThrow(reason)
  })

  it('refuses nesting deeper than the limit without overflowing the stack', () => {
    const deep = `[{"a":${'['.repeat(MAX_DEPTH + 5)}${']'.repeat(MAX_DEPTH + 5)}}]`
    expect(() => splitEvents(deep)).toThrow('nest deeper')
  })

  it('accepts exactly what JSON.parse accepts as an array of objects (property)', () => {
    const object = fc.dictionary(fc.string(), fc.jsonValue())
    const body = fc.array(object, { maxLength: 5 }).map((events) => JSON.stringify(events, null, 1))
    fc.assert(
      fc.property(body, (text) => {
        const { events } = splitEvents(text)
        expect(events.map((e) => JSON.parse(e.text))).toEqual(JSON.parse(text))
      }),
      { numRuns: 300 },
    )
    // Arbitrary JSON and mutations of it: the verdicts agree.
    const mutated = fc
      .tuple(
        fc.json(),
        fc.nat(),
        fc.constantFrom('', ',', '"', '\\', '}', ']', '[', '-', '0', 'e', ' ', '\u0000'),
      )
      .map(([text, at, insert]) => {
        const cut = at % (text.length + 1)
        return `[${text.slice(0, cut)}${insert}${text.slice(cut + (insert === '' ? 1 : 0))}]`
      })
    fc.assert(
      fc.property(fc.oneof(fc.json(), mutated, body), (text) => {
        expect(splitAccepts(text)).toBe(jsonAccepts(text))
      }),
      { numRuns: 2000 },
    )
  })
})
