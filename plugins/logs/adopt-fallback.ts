/**
 * Events acknowledged while the relay ran on `relay.storage.fallback_dir` belong to the relay
 * after the storage folder is writable again: at start, the pending events of the fallback
 * buffer are moved into the storage folder's buffer (oldest first, in chunks, each chunk
 * appended there before it is deleted from the fallback), so the forwarder sends them as it
 * sends everything else. A kill between the two commits sends a chunk twice, never loses it
 * (the upstream de-duplicates by `decision_id`). Dead-lettered events stay in the fallback file
 * for `regent relay logs` and are reported.
 */
import { existsSync, rmSync } from 'node:fs'
import { join, resolve } from 'node:path'
import type { Logger } from 'pino'
import { eventsOf, splitEventSpans } from '../../core/decision-events/index.js'
import { DecisionBuffer, type DecisionBufferOptions } from '../../store/decision-buffer/index.js'
import { BUFFER_FILE_NAME, type DecisionLogsConfig } from './config.js'

const CHUNK_EVENTS = 1000
const CHUNK_BYTES = 4 * 1024 * 1024

/** What was moved: events now in the storage folder's buffer, and events left behind. */
export interface AdoptedFallback {
  movedEvents: number
  leftEvents: number
  leftDeadEvents: number
}

/**
 * Moves the pending events of the buffer in `fallbackDir` into the one in `storageDir` (both
 * opened here, on the calling thread, before the relay opens its own). Does nothing when the two
 * are the same folder or the fallback holds no buffer.
 */
export function adoptFallbackBuffer(
  fallbackDir: string,
  storageDir: string,
  config: DecisionLogsConfig,
  logger: Logger,
): AdoptedFallback | undefined {
  const from = join(fallbackDir, BUFFER_FILE_NAME)
  if (resolve(fallbackDir) === resolve(storageDir) || !existsSync(from)) return undefined
  const options = (path: string): DecisionBufferOptions => ({
    path,
    sync: config.buffer.sync,
    maxBytes: config.buffer.max_bytes,
    overflow: 'backpressure',
    busyTimeoutMs: config.buffer.busy_timeout_ms,
    integrityCheck: config.buffer.integrity_check,
    deadLetterMaxEvents: config.dead_letter.max_events,
    deadLetterMaxBytes: config.dead_letter.max_bytes,
  })
  const source = DecisionBuffer.open(options(from))
  let movedEvents = 0
  try {
    const target = DecisionBuffer.open(options(join(storageDir, BUFFER_FILE_NAME)))
    try {
      for (;;) {
        const batch = source.claim(CHUNK_EVENTS, CHUNK_BYTES)
        if (!batch) break
        const events = eventsOf(splitEventSpans(`[${batch.texts.join(',')}]`))
        const outcome = target.append(events)
        if (outcome.kind !== 'stored') {
          // The storage buffer is full: the rest waits in the fallback for a later start.
          source.releaseAll()
          break
        }
        source.acknowledge(batch)
        movedEvents += batch.seqs.length
      }
    } finally {
      target.close()
    }
    const left = source.stats()
    const adopted = { movedEvents, leftEvents: left.events, leftDeadEvents: left.deadEvents }
    if (left.events === 0 && left.deadEvents === 0) {
      source.close()
      for (const suffix of ['', '-wal', '-shm']) rmSync(from + suffix, { force: true })
      logger.info({ from, events: movedEvents }, 'moved decision logs from relay.storage.fallback_dir')
    } else {
      logger.warn(
        { from, events: movedEvents, left_events: left.events, left_dead_events: left.deadEvents },
        'moved decision logs from relay.storage.fallback_dir; some are left there',
      )
    }
    return adopted
  } finally {
    if (!source.isClosed) source.close()
  }
}
