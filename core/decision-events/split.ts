/**
 * Splits an upload body (a JSON array of event objects) into each event's raw text, validating
 * the whole body on the way (as JSON, and against the event rules of rules.ts), without parsing
 * it into values.
 *
 * Why not `JSON.parse`: re-serialising an event changes it (`req_id` above 2^53 loses digits,
 * `1.0` becomes `1`), and the relay must pass events through byte for byte. So this is one pass
 * of a strict JSON recogniser (RFC 8259: string escapes, no control characters in strings,
 * number grammar, literals) that records where each top-level object starts and ends, and picks
 * up the indexed fields (`decision_id`, `timestamp`, `labels.id`; for the service also `path`,
 * `labels["system-id"]` and the decision's outcome) when they are strings.
 * The service runs the same pass before it stores events, so both refuse the same events, and a
 * batch past the reader's event cap is refused as soon as the cap is passed, not after parsing.
 * With the fields recorded here the service stores an event without parsing it a second time.
 */
import {
  DECISION_ID_RULE,
  decisionIdProblem,
  EventsFormatError,
  MAX_EVENT_DEPTH,
  TooManyEventsError,
} from './rules.js'

export { EventsFormatError, MAX_EVENT_DEPTH, TooManyEventsError }

/** A raw event: its text exactly as received, plus the indexed fields (null when absent or not strings). */
export interface SplitEvent {
  text: string
  decisionId: string | null
  timestamp: string | null
  /** `labels.id`: the agent process that made the decision. */
  agentId: string | null
  /** UTF-8 length of `text` when known. */
  bytes?: number
}

/** Events of one body, and how many of them lack a string `decision_id` or `timestamp`. */
export interface SplitEvents {
  events: SplitEvent[]
  malformed: number
}

/**
 * Events of one body as offsets into its text: cheap to build, and cheap to send to another
 * thread (one string and one Int32Array instead of an object and four strings per event).
 *
 * Per event, `SPAN_STRIDE` slots of `spans`: the event's start and end in `text`, its UTF-8
 * length (-1 until known), then start and end of `decision_id`, `timestamp`, `labels.id`,
 * `path` and `labels["system-id"]` (the SPAN_FIELD slots), then the outcome bits (OUTCOME).
 * A field's start is -1 when it is absent (or not a string); at most -2 when its string had
 * escapes, the decoded value being `escapes[-2 - start]`.
 */
export interface EventSpans {
  text: string
  spans: Int32Array
  count: number
  escapes: string[]
  malformed: number
}

/** Slots per event in `EventSpans.spans`. */
export const SPAN_STRIDE = 14
/** Where each recorded field's start and end are, from the event's first slot. */
export const SPAN_FIELD = { decisionId: 3, timestamp: 5, agentId: 7, path: 9, systemLabel: 11 } as const
const FIELD_DECISION_ID = SPAN_FIELD.decisionId
const FIELD_TIMESTAMP = SPAN_FIELD.timestamp
const FIELD_AGENT_ID = SPAN_FIELD.agentId
const FIELD_PATH = SPAN_FIELD.path
const FIELD_SYSTEM_LABEL = SPAN_FIELD.systemLabel
/** The slot of the outcome bits (OUTCOME), from the event's first slot. */
export const SPAN_OUTCOME = 13
/**
 * Outcome bits: `result` is true, or an object whose `allowed` is true (ALLOWED); the same with
 * false (DENIED); `error` is present and not null (ERROR). No bit: none of these.
 */
export const OUTCOME = { allowed: 1, denied: 2, error: 4 } as const

/** Which object of an event the scanner is in: the fields it records depend on it. */
enum Within {
  Other,
  Event,
  Labels,
  Result,
}

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
export function splitEvents(text: string, options: SplitOptions = {}): SplitEvents {
  const split = splitEventSpans(text, options)
  return { events: eventsOf(split), malformed: split.malformed }
}

/** What a reader bounds. */
export interface SplitOptions {
  /** Refuse (TooManyEventsError) as soon as the array holds more events than this. */
  maxEvents?: number
}

/**
 * Splits `text` into events as offsets (see EventSpans).
 * @throws EventsFormatError when the text is not a JSON array of valid events (rules.ts).
 * @throws TooManyEventsError past `options.maxEvents`, before the rest of the body is read.
 */
export function splitEventSpans(text: string, options: SplitOptions = {}): EventSpans {
  return new Splitter(text, options.maxEvents ?? Number.POSITIVE_INFINITY).run()
}

/**
 * The events of a split body as objects. Their texts are slices of the body (V8 shares the
 * body's memory for long slices, so this copies no event text).
 */
export function eventsOf(split: EventSpans): SplitEvent[] {
  const { text, spans, escapes, count } = split
  const events = new Array<SplitEvent>(count)
  const field = (at: number): string | null => {
    const start = spans[at]!
    if (start === -1) return null
    if (start <= -2) return escapes[-2 - start]!
    return text.slice(start, spans[at + 1])
  }
  for (let k = 0, at = 0; k < count; k++, at += SPAN_STRIDE) {
    const bytes = spans[at + 2]!
    events[k] = {
      text: text.slice(spans[at]!, spans[at + 1]),
      decisionId: field(at + FIELD_DECISION_ID),
      timestamp: field(at + FIELD_TIMESTAMP),
      agentId: field(at + FIELD_AGENT_ID),
      ...(bytes >= 0 ? { bytes } : {}),
    }
  }
  return events
}

class Splitter {
  private i = 0
  private readonly n: number
  private spans = new Int32Array(64 * SPAN_STRIDE)
  private readonly escapes: string[] = []
  /** Where the current event's slots start in `spans`. */
  private at = 0
  /** Keys of the objects being scanned, innermost last, to refuse a duplicate. */
  private readonly keys = new KeyStack()

  constructor(
    private readonly text: string,
    private readonly maxEvents: number,
  ) {
    this.n = text.length
  }

  run(): EventSpans {
    let count = 0
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
          throw this.fail(`event ${count} is not a JSON object`)
        }
        if (count >= this.maxEvents) throw new TooManyEventsError(this.maxEvents)
        const at = count * SPAN_STRIDE
        if (at + SPAN_STRIDE > this.spans.length) {
          const grown = new Int32Array(this.spans.length * 2)
          grown.set(this.spans)
          this.spans = grown
        }
        const spans = this.spans
        this.at = at
        spans[at] = this.i
        spans[at + 2] = -1
        spans[at + FIELD_DECISION_ID] = -1
        spans[at + FIELD_TIMESTAMP] = -1
        spans[at + FIELD_AGENT_ID] = -1
        spans[at + FIELD_PATH] = -1
        spans[at + FIELD_SYSTEM_LABEL] = -1
        spans[at + SPAN_OUTCOME] = 0
        try {
          this.scanObject(1, Within.Event)
        } catch (err) {
          if (err instanceof EventsFormatError) err.event = count
          throw err
        }
        spans[at + 1] = this.i
        if (spans[at + FIELD_DECISION_ID] === -1 || spans[at + FIELD_TIMESTAMP] === -1) malformed++
        count++
        this.skipWs()
        const c = this.peek()
        this.i++
        if (c === 0x5d) break
        if (c !== 0x2c /* , */) throw this.fail(`expected "," or "]" after event ${count - 1}`, this.i - 1)
      }
    }
    this.skipWs()
    if (this.i < this.n) throw this.fail('unexpected text after the array')
    return {
      text: this.text,
      // A copy of its own size: it is sent to another thread whole.
      spans: this.spans.slice(0, count * SPAN_STRIDE),
      count,
      escapes: this.escapes,
      malformed,
    }
  }

  /**
   * Scans `{...}` at `this.i`, refusing a key it already holds; at the top level of an event it
   * also records the indexed fields and applies the `decision_id` rule.
   */
  private scanObject(depth: number, within: Within): void {
    if (depth > MAX_EVENT_DEPTH) throw this.fail(`values nest deeper than ${MAX_EVENT_DEPTH} levels`)
    this.i++
    this.skipWs()
    if (this.peek() === 0x7d /* } */) {
      this.i++
      return
    }
    const keys = this.keys
    const base = keys.top
    for (;;) {
      this.skipWs()
      if (this.peek() !== QUOTE) throw this.fail('expected a string key')
      const keyStart = this.i
      const keyEscaped = this.scanString()
      const keyEnd = this.i
      if (!keys.add(this.text, base, keyStart, keyEnd, keyEscaped)) {
        const key = keyText(this.text, keyStart, keyEnd, keyEscaped)
        const err = this.fail(`duplicate key ${JSON.stringify(key)}`, keyStart)
        err.path.push(key)
        throw err
      }
      // Names are read only where they matter: the recorded fields at the top, in labels and in
      // an object result.
      const key = within !== Within.Other ? keyText(this.text, keyStart, keyEnd, keyEscaped) : ''
      this.skipWs()
      if (this.peek() !== 0x3a /* : */) throw this.fail('expected ":" after a key')
      this.i++
      this.skipWs()
      try {
        if (within === Within.Other || !this.scanField(depth, within, key)) this.scanValue(depth + 1)
      } catch (err) {
        // The error names the field it happened in: each object on the way out adds its key.
        if (err instanceof EventsFormatError)
          err.path.unshift(keyText(this.text, keyStart, keyEnd, keyEscaped))
        throw err
      }
      this.skipWs()
      const c = this.peek()
      this.i++
      if (c === 0x7d) {
        keys.pop(base)
        return
      }
      if (c !== 0x2c) throw this.fail('expected "," or "}" in an object', this.i - 1)
    }
  }

  /**
   * Scans the value of `key` in an object of kind `within` when it is a field to record (true),
   * else leaves it to scanValue (false).
   */
  private scanField(depth: number, within: Within, key: string): boolean {
    const c = this.peek()
    if (within === Within.Event) {
      if (key === 'decision_id') this.scanDecisionId(depth)
      else if (key === 'timestamp' && c === QUOTE) this.recordString(FIELD_TIMESTAMP)
      else if (key === 'path' && c === QUOTE) this.recordString(FIELD_PATH)
      else if (key === 'labels' && c === 0x7b) this.scanObject(depth + 1, Within.Labels)
      else if (key === 'result' && c === 0x7b) this.scanObject(depth + 1, Within.Result)
      else if (key === 'result' && (c === 0x74 || c === 0x66)) this.recordOutcome(c)
      else if (key === 'error' && c !== 0x6e /* null */) {
        this.spans[this.at + SPAN_OUTCOME]! |= OUTCOME.error
        return false
      } else return false
    } else if (within === Within.Labels) {
      if (key === 'id' && c === QUOTE) this.recordString(FIELD_AGENT_ID)
      else if (key === 'system-id' && c === QUOTE) this.recordString(FIELD_SYSTEM_LABEL)
      else return false
    } else if (key === 'allowed' && (c === 0x74 || c === 0x66)) {
      this.recordOutcome(c)
    } else return false
    return true
  }

  /** Scans `true` or `false` at `this.i` (first character `c`) as the decision's outcome. */
  private recordOutcome(c: number): void {
    this.scanLiteral(c === 0x74 ? 'true' : 'false')
    this.spans[this.at + SPAN_OUTCOME]! |= c === 0x74 ? OUTCOME.allowed : OUTCOME.denied
  }

  /** `decision_id`: null (the reader derives one), or a string within the rule. */
  private scanDecisionId(depth: number): void {
    const start = this.i
    if (this.peek() !== QUOTE) {
      if (this.text.startsWith('null', start)) {
        this.i += 4
        return
      }
      this.scanValue(depth + 1)
      throw this.fail(`${DECISION_ID_RULE} (got ${describeJson(this.text, start)})`, start)
    }
    this.recordString(FIELD_DECISION_ID)
    const slot = this.spans[this.at + FIELD_DECISION_ID]!
    const id =
      slot <= -2
        ? this.escapes[-2 - slot]!
        : this.text.slice(slot, this.spans[this.at + FIELD_DECISION_ID + 1])
    const problem = decisionIdProblem(id)
    if (problem) throw this.fail(problem, start)
  }

  private scanArray(depth: number): void {
    if (depth > MAX_EVENT_DEPTH) throw this.fail(`values nest deeper than ${MAX_EVENT_DEPTH} levels`)
    this.i++
    this.skipWs()
    if (this.peek() === 0x5d) {
      this.i++
      return
    }
    for (let index = 0; ; index++) {
      this.skipWs()
      try {
        this.scanValue(depth + 1)
      } catch (err) {
        if (err instanceof EventsFormatError) err.path.unshift(index)
        throw err
      }
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
    else if (c === 0x7b) this.scanObject(depth, Within.Other)
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

  /** Scans the string at `this.i` and records it as field `slot` of the current event. */
  private recordString(slot: number): void {
    const start = this.i
    const escaped = this.scanString()
    const at = this.at + slot
    if (escaped) {
      this.escapes.push(JSON.parse(this.text.slice(start, this.i)) as string)
      this.spans[at] = -1 - this.escapes.length
    } else {
      this.spans[at] = start + 1
      this.spans[at + 1] = this.i - 1
    }
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
    return new EventsFormatError(reason, at)
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

/**
 * The keys of the objects being scanned, as one stack of spans into the text (an object's keys
 * from its `base` to `top`), so checking for a duplicate allocates nothing for the usual object
 * of a few plain keys. An object with many keys gets a Set of their names, so a hostile object of
 * 100,000 keys costs linear time, not quadratic.
 */
class KeyStack {
  top = 0
  private starts = new Int32Array(256)
  private ends = new Int32Array(256)
  private escaped = new Uint8Array(256)
  /** Sets of names of the objects past SET_AFTER keys, by their base. */
  private readonly sets = new Map<number, Set<string>>()

  /**
   * Adds the key whose string (quotes included) spans `start..end` to the object at `base`;
   * false when the object holds it already (names compared after unescaping).
   */
  add(text: string, base: number, start: number, end: number, escaped: boolean): boolean {
    const count = this.top - base
    const set = this.sets.get(base)
    if (set) {
      const name = keyText(text, start, end, escaped)
      if (set.has(name)) return false
      set.add(name)
    } else {
      for (let k = base; k < this.top; k++) {
        if (this.same(text, k, start, end, escaped)) return false
      }
      if (count + 1 > SET_AFTER) {
        const names = new Set<string>()
        for (let k = base; k < this.top; k++) {
          names.add(keyText(text, this.starts[k]!, this.ends[k]!, this.escaped[k] === 1))
        }
        names.add(keyText(text, start, end, escaped))
        this.sets.set(base, names)
      }
    }
    this.push(start, end, escaped)
    return true
  }

  /** Forgets the keys of the object at `base` (it ended). */
  pop(base: number): void {
    this.top = base
    if (this.sets.size > 0) this.sets.delete(base)
  }

  private same(text: string, k: number, start: number, end: number, escaped: boolean): boolean {
    const kStart = this.starts[k]!
    const kEnd = this.ends[k]!
    if (escaped || this.escaped[k] === 1) {
      return keyText(text, kStart, kEnd, this.escaped[k] === 1) === keyText(text, start, end, escaped)
    }
    const length = end - start
    if (kEnd - kStart !== length) return false
    for (let j = 1; j < length - 1; j++) {
      if (text.charCodeAt(kStart + j) !== text.charCodeAt(start + j)) return false
    }
    return true
  }

  private push(start: number, end: number, escaped: boolean): void {
    if (this.top === this.starts.length) {
      const grow = <T extends Int32Array | Uint8Array>(a: T, b: T): T => {
        b.set(a)
        return b
      }
      this.starts = grow(this.starts, new Int32Array(this.top * 2))
      this.ends = grow(this.ends, new Int32Array(this.top * 2))
      this.escaped = grow(this.escaped, new Uint8Array(this.top * 2))
    }
    this.starts[this.top] = start
    this.ends[this.top] = end
    this.escaped[this.top] = escaped ? 1 : 0
    this.top++
  }
}

/** Keys an object may hold before its names go into a Set. */
const SET_AFTER = 16

/** The name of the key whose string (quotes included) spans `start..end`. */
function keyText(text: string, start: number, end: number, escaped: boolean): string {
  return escaped ? (JSON.parse(text.slice(start, end)) as string) : text.slice(start + 1, end - 1)
}

/** What kind of JSON value starts at `start` (for refusals). */
function describeJson(text: string, start: number): string {
  const c = text.charCodeAt(start)
  if (c === 0x7b) return 'an object'
  if (c === 0x5b) return 'an array'
  if (c === 0x74 || c === 0x66) return 'a boolean'
  return 'a number'
}
