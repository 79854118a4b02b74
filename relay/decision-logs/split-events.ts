/**
 * The relay's view of the shared decision-event splitter (core/decision-events): the same
 * recogniser and rules the service applies, so an event the relay acknowledges is one the
 * service accepts.
 */
export {
  type EventSpans,
  EventsFormatError,
  eventsOf,
  MAX_EVENT_DEPTH,
  SPAN_STRIDE,
  type SplitEvents,
  splitEventSpans,
  splitEvents,
  TooManyEventsError,
} from '../../core/decision-events/index.js'
