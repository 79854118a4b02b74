/**
 * The `relay.decision_logs` config section: intake paths and limits, the on-disk buffer, the
 * upload to the upstream, retries and the dead-letter table. Every key has a default, so an
 * absent section means "decision logs on, durable, 32 KiB batches like OPA".
 *
 * The upstream itself (service URL and credentials) comes from the OPA-format part of the relay
 * config; `upload.service` and `upload.resource` only pick which service and path.
 */
import { z } from 'zod'
import { field } from '../../core/config.js'

const MiB = 1024 * 1024

const bufferSchema = z
  .strictObject({
    /** Bound on stored event text (pending, in flight); the file is larger by its indexes. */
    max_bytes: field.positiveInt().default(1024 * MiB),
    /** `backpressure`: 503 + Retry-After to agents (they keep their copy); `drop_oldest`: delete the oldest undelivered. */
    overflow: z
      .enum(['backpressure', 'drop_oldest'], { error: 'expected backpressure or drop_oldest' })
      .default('backpressure'),
    /** `full` (fsync each commit: survives a power cut) or `normal` (survives a process kill). */
    sync: z.enum(['full', 'normal'], { error: 'expected full or normal' }).default('full'),
    /** How long a write may wait for a lock held by another process before intake answers 503. */
    busy_timeout_ms: field.nonNegativeInt().default(250),
    /** `Retry-After` sent with a 503 (buffer full, locked, disk full, shutting down). */
    retry_after_seconds: field.positiveInt().default(5),
    /** Check run when the file is opened: `quick` (O(n)), `full` (slower, also indexes) or `off`. */
    integrity_check: z
      .enum(['quick', 'full', 'off'], { error: 'expected quick, full or off' })
      .default('quick'),
  })
  .prefault({})

const intakeSchema = z
  .strictObject({
    /** Paths agents post to; each also takes a `/{partition}` suffix. */
    paths: z
      .array(z.string().regex(/^\/[^\s?#]*$/, { error: 'expected a path starting with /' }))
      .default(['/v1/logs']),
    /** Bytes accepted on the wire per request. */
    max_body_bytes: field.positiveInt().default(8 * MiB),
    /** Bytes a gzip body may inflate to (a gzip bomb gets 400 without being inflated whole). */
    max_decompressed_bytes: field.positiveInt().default(64 * MiB),
    /** Worker threads that inflate and split bodies (0: on the main thread). */
    parse_workers: field.nonNegativeInt().default(1),
  })
  .prefault({})

const uploadSchema = z
  .strictObject({
    /** Name of the OPA-format service to upload to; default: `decision_logs.service`, else the first service. */
    service: z.string().min(1).optional(),
    /** Path under the service URL; default: `decision_logs.resource`, else `/logs`. */
    resource: z.string().min(1).optional(),
    /** Bound on one gzip batch; 32 KiB like OPA's `upload_size_limit_bytes`. Raise it for the regent service. */
    max_batch_bytes: field.positiveInt().default(32 * 1024),
    /** Cap on events per batch, whatever their size. */
    max_batch_events: field.positiveInt().default(10_000),
    /** One upload attempt's time limit (connect, headers and body). */
    timeout_ms: field.positiveInt().default(10_000),
    /** How often an idle forwarder looks for events written by another process (a redrive). */
    idle_poll_ms: field.positiveInt().default(1000),
    /** On shutdown, how long the final upload may run before the rest waits on disk for the next start. */
    drain_timeout_ms: field.nonNegativeInt().default(5000),
  })
  .prefault({})

const retrySchema = z
  .strictObject({
    /** First backoff after a failure; doubles each time with jitter. */
    min_delay_ms: field.positiveInt().default(100),
    /** Backoff cap (also caps a `Retry-After` the upstream asks for). */
    max_delay_ms: field.positiveInt().default(60_000),
    /** Attempts for a batch refused with a 4xx other than 400/408/413/429 before it is dead-lettered (400 bisects instead). */
    max_client_error_attempts: field.positiveInt().default(5),
  })
  .prefault({})

const deadLetterSchema = z
  .strictObject({
    /** Past either bound, the oldest dead batches are dropped (counted and logged). */
    max_events: field.positiveInt().default(100_000),
    max_bytes: field.positiveInt().default(256 * MiB),
  })
  .prefault({})

/** Schema of `relay.decision_logs` (compose it into the relay section under `decision_logs`). */
export const decisionLogsSectionSchema = z
  .strictObject({
    enabled: z.boolean({ error: 'expected true or false' }).default(true),
    intake: intakeSchema,
    buffer: bufferSchema,
    upload: uploadSchema,
    retry: retrySchema,
    dead_letter: deadLetterSchema,
  })
  .prefault({})

/** The validated `relay.decision_logs` section with defaults filled in. */
export type DecisionLogsConfig = z.output<typeof decisionLogsSectionSchema>

/** File name of the buffer inside the relay's storage folder. */
export const BUFFER_FILE_NAME = 'decision-logs.db'
