/** The durable decision-log buffer (SQLite, WAL): see decision-buffer.ts. */
export { type DeadLetterReason, DecisionBuffer } from './decision-buffer.js'
export { BufferOpenError, SCHEMA_VERSION } from './schema.js'
export type * from './types.js'
