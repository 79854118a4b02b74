/**
 * Splits an upload body (a JSON array of event objects) into each event's raw text, validating
 * the whole body as JSON on the way, without parsing it into values.
 *
 * Why not `JSON.parse`: re-serialising an event changes it (`req_id` above 2^53 loses digits,
 * `1.0` becomes `1`), and the relay must pass events through byte for byte. So this is one pass
 * of a strict JSON recogniser (RFC 8259: string escapes, no control characters in strings,
 * number grammar, literals) that records where each top-level object starts and ends, and picks
 * up the three indexed fields (`decision_id`, `timestamp`, `labels.id`) when they are strings.
 */
import type { RawEvent } from '../../store/decision-buffer/index.js'

/** A body that is not a JSON array of objects; `offset` is the character where it went wrong. */
export class EventsFormatError extends Error {
  constructor(
    message: string,
    readonly offset: number,
  ) {
    super(message)
    this.name = 'EventsFormatError'
  }
}

/** Events of one body, and how many of them lack a string `decision_id` or `timestamp`. */
export interface SplitEvents {
  events: RawEvent[]
  malformed: number
}

/** How deep values may nest inside an event (deeper bodies are refused, not crashed on). */
export const MAX_DEPTH = 1000

const QUOTE = 34
// A run (possibly empty) of string characters that need no attention; sticky, so it never scans ahead.
const PLAIN_RUN = /[^"\\\u0000-\u001f]*/y
const BACKSLASH = 92

/**
 * Splits `text` into events.
 * @throws EventsFormatError when the text is not a JSON array whose elements are all objects.
 * @example splitEvents('[{"decision_id":"a","req_id":18446744073709551615}]').events[0].text
 *   // '{"decision_id":"a","req_id":18446744073709551615}'
 */
export function splitEvents(text: string): SplitEvents {
  return new Splitter(text).run()
}

class Splitter {
  private i = 0
  private readonly n: number
  // Fields of the event being scanned (top-level keys only).
  private decisionId: string | null = null
  private timestamp: string | null = null
  private agentId: string | null = null

  constructor(private readonly text: string) {
    this.n = text.length
  }

  run(): SplitEvents {
    const events: RawEvent[] = []
    let malformed = 0
    this.skipWs()
    if (this.peek() !== 0x5b /* [ */) {
      throw this.fail(
        this.i >= this.n
          ? 'the body is empty: expected a JSON array of events'
          : 'expected a JSON array of events',
      )
    }
    this.i++
    this.skipWs()
    if (this.peek() === 0x5d /* ] */) {
      this.i++
    } else {
      for (;;) {
        this.skipWs()
        if (this.peek() !== 0x7b /* { */) {
          throw this.fail(`event ${events.length} is not a JSON object`)
        }
        const start = this.i
        this.decisionId = null
        this.timestamp = null
        this.agentId = null
        this.scanObject(1, true)
        const event: RawEvent = {
          text: this.text.slice(start, this.i),
          decisionId: this.decisionId,
          timestamp: this.timestamp,
          agentId: this.agentId,
        }
        if (event.decisionId === null || event.timestamp === null) malformed++
        events.push(event)
        this.skipWs()
        const c = this.peek()
        this.i++
        if (c === 0x5d) break
        if (c !== 0x2c /* , */)
          throw this.fail(`expected "," or "]" after event ${events.length - 1}`, this.i - 1)
      }
    }
    this.skipWs()
    if (this.i < this.n) throw this.fail('unexpected text after the array')
    return { events, malformed }
  }

  /** Scans `{...}` at `this.i`; at the top level of an event it also records indexed fields. */
  private scanObject(depth: number, top: boolean, inLabels = false): void {
    if (depth > MAX_DEPTH) throw this.fail(`values nest deeper than ${MAX_DEPTH} levels`)
    this.i++
    this.skipWs()
    if (this.peek() === 0x7d /* } */) {
      this.i++
      return
    }
    for (;;) {
      this.skipWs()
      if (this.peek() !== QUOTE) throw this.fail('expected a string key')
      const keyStart = this.i
      const keyEscaped = this.scanString()
      const key = top || inLabels ? this.keyName(keyStart, keyEscaped) : ''
      this.skipWs()
      if (this.peek() !== 0x3a /* : */) throw this.fail('expected ":" after a key')
      this.i++
      this.skipWs()
      if (top && (key === 'decision_id' || key === 'timestamp') && this.peek() === QUOTE) {
        const valueStart = this.i
        const value = this.stringValue(valueStart, this.scanString())
        if (key === 'decision_id') this.decisionId = value
        else this.timestamp = value
      } else if (top && key === 'labels' && this.peek() === 0x7b) {
        this.scanObject(depth + 1, false, true)
      } else if (inLabels && key === 'id' && this.peek() === QUOTE) {
        const valueStart = this.i
        this.agentId = this.stringValue(valueStart, this.scanString())
      } else {
        this.scanValue(depth + 1)
      }
      this.skipWs()
      const c = this.peek()
      this.i++
      if (c === 0x7d) return
      if (c !== 0x2c) throw this.fail('expected "," or "}" in an object', this.i - 1)
    }
  }

  private scanArray(depth: number): void {
    if (depth > MAX_DEPTH) throw this.fail(`values nest deeper than ${MAX_DEPTH} levels`)
    this.i++
    this.skipWs()
    if (this.peek() === 0x5d) {
      this.i++
      return
    }
    for (;;) {
      this.skipWs()
      this.scanValue(depth + 1)
      this.skipWs()
      const c = this.peek()
      this.i++
      if (c === 0x5d) return
      if (c !== 0x2c) throw this.fail('expected "," or "]" in an array', this.i - 1)
    }
  }

  private scanValue(depth: number): void {
    const c = this.peek()
    if (c === QUOTE) this.scanString()
    else if (c === 0x7b) this.scanObject(depth, false)
    else if (c === 0x5b) this.scanArray(depth)
    else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) this.scanNumber()
    else if (c === 0x74) this.scanLiteral('true')
    else if (c === 0x66) this.scanLiteral('false')
    else if (c === 0x6e) this.scanLiteral('null')
    else throw this.fail(this.i >= this.n ? 'unexpected end of the body' : 'expected a JSON value')
  }

  /** Scans a string at `this.i` (on its opening quote); returns whether it holds escapes. */
  private scanString(): boolean {
    const text = this.text
    const n = this.n
    let i = this.i + 1
    let escaped = false
    while (i < n) {
      // Jump over plain characters natively; only quotes, escapes and control characters stop it.
      PLAIN_RUN.lastIndex = i
      PLAIN_RUN.test(text)
      i = PLAIN_RUN.lastIndex
      const c = text.charCodeAt(i)
      if (c === QUOTE) {
        this.i = i + 1
        return escaped
      }
      if (c === BACKSLASH) {
        escaped = true
        const e = text.charCodeAt(i + 1)
        if (e === 0x75 /* u */) {
          for (let k = 2; k < 6; k++) {
            if (!isHex(text.charCodeAt(i + k))) throw this.fail('invalid \\u escape in a string', i)
          }
          i += 6
          continue
        }
        // " \ / b f n r t
        if (
          e === QUOTE ||
          e === BACKSLASH ||
          e === 0x2f ||
          e === 0x62 ||
          e === 0x66 ||
          e === 0x6e ||
          e === 0x72 ||
          e === 0x74
        ) {
          i += 2
          continue
        }
        throw this.fail('invalid escape in a string', i)
      }
      if (c < 0x20) throw this.fail('control character in a string (it must be escaped)', i)
      i++
    }
    throw this.fail('unterminated string', this.i)
  }

  private scanNumber(): void {
    const text = this.text
    let i = this.i
    if (text.charCodeAt(i) === 0x2d) i++
    const first = text.charCodeAt(i)
    if (first === 0x30) i++
    else if (first >= 0x31 && first <= 0x39) i = digits(text, i)
    else throw this.fail('invalid number', this.i)
    if (text.charCodeAt(i) === 0x2e /* . */) {
      const after = digits(text, i + 1)
      if (after === i + 1) throw this.fail('invalid number: digits expected after "."', this.i)
      i = after
    }
    const e = text.charCodeAt(i)
    if (e === 0x65 || e === 0x45) {
      i++
      const sign = text.charCodeAt(i)
      if (sign === 0x2b || sign === 0x2d) i++
      const after = digits(text, i)
      if (after === i) throw this.fail('invalid number: digits expected in the exponent', this.i)
      i = after
    }
    this.i = i
  }

  private scanLiteral(word: string): void {
    if (!this.text.startsWith(word, this.i)) throw this.fail('expected a JSON value')
    this.i += word.length
  }

  private keyName(start: number, escaped: boolean): string {
    return escaped
      ? (JSON.parse(this.text.slice(start, this.i)) as string)
      : this.text.slice(start + 1, this.i - 1)
  }

  private stringValue(start: number, escaped: boolean): string {
    return escaped
      ? (JSON.parse(this.text.slice(start, this.i)) as string)
      : this.text.slice(start + 1, this.i - 1)
  }

  private skipWs(): void {
    const text = this.text
    let i = this.i
    for (;;) {
      const c = text.charCodeAt(i)
      if (c === 0x20 || c === 0x0a || c === 0x0d || c === 0x09) i++
      else break
    }
    this.i = i
  }

  private peek(): number {
    return this.text.charCodeAt(this.i)
  }

  private fail(reason: string, at = this.i): EventsFormatError {
    return new EventsFormatError(`${reason} (at character ${at})`, at)
  }
}

function digits(text: string, from: number): number {
  let i = from
  for (;;) {
    const c = text.charCodeAt(i)
    if (c >= 0x30 && c <= 0x39) i++
    else return i
  }
}

function isHex(c: number): boolean {
  return (c >= 0x30 && c <= 0x39) || (c >= 0x41 && c <= 0x46) || (c >= 0x61 && c <= 0x66)
}
