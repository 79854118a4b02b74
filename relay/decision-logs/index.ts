/** The relay's decision-log part: intake, durable buffer, forwarder (see decision-logs.ts). */

export {
  type EventSpans,
  EventsFormatError,
  eventsOf,
  splitEventSpans,
  splitEvents,
} from '../../core/decision-events/index.js'
export { adoptFallbackBuffer } from './adopt-fallback.js'
export { BufferThread } from './buffer-thread.js'
export { BUFFER_FILE_NAME, type DecisionLogsConfig, decisionLogsSectionSchema } from './config.js'
export {
  DecisionLogs,
  type DecisionLogsOptions,
  type DecisionLogsStatus,
  upstreamLogsUrl,
} from './decision-logs.js'
export { decisionLogsExtension, readDecisionLogsConfig, resolveUpstream } from './extension.js'
export { Forwarder, type ForwarderState } from './forwarder.js'
export { GroupCommitter } from './group-commit.js'
export { createIntakeHandler, type IntakeDeps, installDecisionLogRoutes } from './intake.js'
export { DecisionLogMetrics, type DecisionLogTotals } from './metrics.js'
export { ParsePool } from './parse-pool.js'
export { type ParsedUpload, parseUpload } from './parse-upload.js'
export {
  parseRetryAfter,
  postBatch,
  type UploadOutcome,
  type UpstreamSend,
  type UpstreamTarget,
} from './upload.js'
