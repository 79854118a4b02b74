/**
 * The decision-log parse worker (started by decision-parse-pool.ts): turns an upload's text into
 * rows with decision-events.ts, off the event loop that runs the inserts (a gzip upload is
 * inflated here first, as readBodyText would have on the event loop). An upload the rules
 * refuse comes back as its HTTP error (status, code, message), so the answer is the one the main
 * thread would have given.
 */
import { gzipBodyTextSync, HttpError } from '../core/http/index.js'
import { serveTasks } from '../core/workers/task-worker.js'
import { decisionsFromBatch } from './decision-events.js'
import type { ParseAnswer, ParseTask } from './decision-parse-protocol.js'

serveTasks<null, null, ParseTask, ParseAnswer>({
  state: () => null,
  task(task): ParseAnswer {
    try {
      const text =
        'text' in task
          ? task.text
          : gzipBodyTextSync(
              Buffer.from(task.gzip.buffer, task.gzip.byteOffset, task.gzip.byteLength),
              task.maxBytes,
              {
                unlabelledGzip: true,
              },
            )
      return { ok: true, rows: decisionsFromBatch(text, task.context) }
    } catch (err) {
      if (err instanceof HttpError)
        return { ok: false, status: err.status, code: err.code, message: err.message }
      throw err
    }
  },
})
