/**
 * What a valid decision event is, for every part that reads one: the relay refuses an invalid
 * event at intake, the service refuses it on upload, and because both apply these rules (through
 * split.ts) an event the relay acknowledged is never one the service refuses.
 *
 * A batch is a JSON array of objects (RFC 8259, UTF-8). In each event:
 * - no object, at any depth, holds the same key twice (the service could not store both, and
 *   JSON parsers disagree on which one wins);
 * - values nest at most `MAX_EVENT_DEPTH` levels;
 * - `decision_id`, when present and not null, is a non-empty string of at most
 *   `MAX_DECISION_ID_CHARS` characters (UTF-16 code units, as JavaScript counts them).
 */

/** Longest `decision_id` accepted (the service's column and de-duplication key). */
export const MAX_DECISION_ID_CHARS = 256

/** How deep values may nest inside an event (deeper bodies are refused, not crashed on). */
export const MAX_EVENT_DEPTH = 1000

/** A body that is not a valid batch of decision events; `offset` is the character where it went wrong. */
export class EventsFormatError extends Error {
  /**
   * Which event is wrong (its index in the array) and where in it (`field`, a dotted path such
   * as `input.user`), when the body is an array and the problem is inside one event.
   */
  event: number | undefined
  readonly path: Array<string | number> = []

  constructor(
    readonly reason: string,
    readonly offset: number,
  ) {
    super(reason)
    this.name = 'EventsFormatError'
    // The event and path are filled in as the error leaves the splitter, so the message is read
    // when it is shown, not fixed here.
    Object.defineProperty(this, 'message', { get: () => this.describe(), configurable: true })
  }

  /** The dotted path of the field at fault (`labels.id`, `input.items[3]`), or '' for the event itself. */
  get field(): string {
    let out = ''
    for (const part of this.path) {
      out += typeof part === 'number' ? `[${part}]` : out === '' ? part : `.${part}`
    }
    return out
  }

  /** The message with the event and field named first, e.g. `event 3, field decision_id: …`. */
  describe(): string {
    const where =
      this.event === undefined
        ? ''
        : `event ${this.event}${this.path.length > 0 ? `, field ${this.field}` : ''}: `
    return `${where}${this.reason} (at character ${this.offset})`
  }
}

/** A batch with more events than the reader accepts (the service answers 413). */
export class TooManyEventsError extends Error {
  constructor(readonly maxEvents: number) {
    super(`a decision batch may hold at most ${maxEvents} events`)
    this.name = 'TooManyEventsError'
  }
}

/**
 * Why a `decision_id` string is refused, or undefined when it is fine.
 * @example decisionIdProblem('') // 'decision_id must be a non-empty string of at most 256 characters (got an empty string)'
 */
export function decisionIdProblem(id: string): string | undefined {
  if (id === '') return `${DECISION_ID_RULE} (got an empty string)`
  if (id.length > MAX_DECISION_ID_CHARS) return `${DECISION_ID_RULE} (got ${id.length} characters)`
  return undefined
}

/** The rule for `decision_id`, as refusals state it. */
export const DECISION_ID_RULE = `decision_id must be a non-empty string of at most ${MAX_DECISION_ID_CHARS} characters`
