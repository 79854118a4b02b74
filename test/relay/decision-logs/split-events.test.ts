import fc from 'fast-check'
import { describe, expect, it } from 'vitest'
import { EventsFormatError, MAX_DEPTH, splitEvents } from '../../../relay/decision-logs/split-events.js'

function jsonAccepts(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text)
    return (
      Array.isArray(value) && value.every((e) => e !== null && typeof e === 'object' && !Array.isArray(e))
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

  it('counts events without a string decision_id or timestamp as malformed, and keeps them', () => {
    const body =
      '[{"decision_id":"a"},{"timestamp":"t"},{"decision_id":7,"timestamp":"t"},{"decision_id":"d","timestamp":"t"}]'
    const { events, malformed } = splitEvents(body)
    expect(events).toHaveLength(4)
    expect(malformed).toBe(3)
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
