/** Decision events as every part reads them: the shared rules and the splitter that applies them. */
export {
  DECISION_ID_RULE,
  decisionIdProblem,
  EventsFormatError,
  MAX_DECISION_ID_CHARS,
  MAX_EVENT_DEPTH,
  TooManyEventsError,
} from './rules.js'
export {
  type EventSpans,
  eventsOf,
  OUTCOME,
  SPAN_FIELD,
  SPAN_OUTCOME,
  SPAN_STRIDE,
  type SplitEvent,
  type SplitEvents,
  type SplitOptions,
  splitEventSpans,
  splitEvents,
} from './split.js'
