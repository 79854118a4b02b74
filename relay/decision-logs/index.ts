/** The relay's decision-log part: intake, durable buffer, forwarder (see decision-logs.ts). */

export {
  type EventSpans,
  EventsFormatError,
  eventsOf,
  splitEventSpans,
  splitEvents,
} from '../../core/decision-events/index.js'
export { adoptFallbackBuffer } from '../../plugins/logs/adopt-fallback.js'
export { BufferThread } from '../../plugins/logs/buffer-thread.js'
export {
  BUFFER_FILE_NAME,
  type DecisionLogsConfig,
  decisionLogsSectionSchema,
} from '../../plugins/logs/config.js'
export { Forwarder, type ForwarderState } from '../../plugins/logs/forwarder.js'
export { GroupCommitter } from '../../plugins/logs/group-commit.js'
export { DecisionLogMetrics, type DecisionLogTotals } from '../../plugins/logs/metrics.js'
export { ParsePool } from '../../plugins/logs/parse-pool.js'
export { type ParsedUpload, parseUpload } from '../../plugins/logs/parse-upload.js'
export {
  parseRetryAfter,
  postBatch,
  type UploadOutcome,
  type UpstreamSend,
  type UpstreamTarget,
} from '../../plugins/logs/upload.js'
export {
  DecisionLogs,
  type DecisionLogsOptions,
  type DecisionLogsStatus,
  upstreamLogsUrl,
} from './decision-logs.js'
export { decisionLogsExtension, readDecisionLogsConfig, resolveUpstream } from './extension.js'
export { createIntakeHandler, type IntakeDeps, installDecisionLogRoutes } from './intake.js'
