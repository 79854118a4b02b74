/**
 * A filter worker (started by filter-off-thread.ts for one large document): parses the content's
 * JSON text, evaluates the filter (filter.ts's runFilter) and answers with the result's JSON text,
 * so neither the evaluation nor the result's parse and stringify run on the main thread.
 */
import { parentPort } from 'node:worker_threads'
import { parseJsonDocument } from '../json-document.js'
import { runFilter } from './filter.js'
import type { FromFilterWorker, ToFilterWorker } from './filter-protocol.js'
import { RunError } from './types.js'

/**
 * Number literals a double may not hold exactly: 15 or more digits, a decimal point among them
 * (`12345678.12345678`), or a 3-digit exponent (matched anywhere, strings included: a match only
 * means the slower parse).
 */
const MAYBE_INEXACT = /\d[\d.]{14}|[eE][+-]?\d{3}/

/**
 * parseJsonDocument's value of `text` (written by stringifyJsonDocument, so valid JSON). With no
 * number that might lose digits, the native parser gives the same value several times faster
 * (a double holds every number of at most 15 significant digits exactly).
 */
function parseContent(text: string): unknown {
  return MAYBE_INEXACT.test(text) ? parseJsonDocument(text) : JSON.parse(text)
}

const port = parentPort
if (!port) throw new Error('filter-worker runs on a worker thread only')
const post = (message: FromFilterWorker) => port.postMessage(message)

port.once('message', async (message: ToFilterWorker) => {
  try {
    const content = parseContent(message.inputText)
    const output = await runFilter(message.policyFilter, message.policyQuery, content, message.budget)
    post({ kind: 'done', ...output })
  } catch (err) {
    const text = err instanceof Error ? err.message : String(err)
    post({ kind: 'error', message: text, runError: err instanceof RunError })
  }
})
