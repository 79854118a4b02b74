/**
 * A decode worker (started by decode-off-thread.ts for one large document). In `pieces` mode it
 * decodes the bytes it is sent with decode.ts, then answers each `next` with the next batch of
 * the document's pieces (decode-transfer.ts), so the main thread receives it a little at a time.
 * In `text` mode it decodes, runs the filter when there is one, and answers each `next` with the
 * next part of the stored form (JSON text), then the item count and ETag: the decoded tree never
 * reaches the main thread, and the filter needs no second worker.
 */
import { parentPort } from 'node:worker_threads'
import { documentEtag, stringifyJsonDocument } from '../json-document.js'
import { decodeContent, itemCount } from './decode.js'
import type { FromDecodeWorker, ToDecodeWorker } from './decode-protocol.js'
import { type Piece, pieceBatches } from './decode-transfer.js'
import { runFilter } from './filter.js'
import { RunError } from './types.js'

/** Characters of text one message carries (a millisecond or so to receive). */
export const TEXT_PART_CHARS = 1024 * 1024

const port = parentPort
if (!port) throw new Error('decode-worker runs on a worker thread only')
const post = (message: FromDecodeWorker) => port.postMessage(message)
let batches: Generator<Piece[]> | undefined
let parts: Generator<FromDecodeWorker> | undefined

/** The messages answering a text-mode decode: the text's parts, then the end. */
function* textMessages(text: string, items: number): Generator<FromDecodeWorker> {
  const etag = documentEtag(text)
  let at = 0
  while (at < text.length) {
    let end = Math.min(text.length, at + TEXT_PART_CHARS)
    // Parts are stored and encoded one by one: a half of a surrogate pair alone would become U+FFFD.
    const last = text.charCodeAt(end - 1)
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++
    yield { kind: 'text', part: text.slice(at, end) }
    at = end
  }
  yield { kind: 'done', items, etag }
}

async function start(message: Extract<ToDecodeWorker, { kind: 'decode' }>): Promise<void> {
  const document = decodeContent(message.bytes, message.format, message.where, message.maxYamlNodes)
  if (message.output === 'pieces') {
    batches = pieceBatches(document)
    return
  }
  const { filter } = message
  const output = filter
    ? await runFilter(filter.policyFilter, filter.policyQuery, document, filter.budget)
    : { text: stringifyJsonDocument(document), items: itemCount(document) }
  parts = textMessages(output.text, output.items)
}

port.on('message', async (message: ToDecodeWorker) => {
  try {
    if (message.kind === 'decode') await start(message)
    if (parts) {
      const next = parts.next()
      post(next.done ? { kind: 'done' } : next.value)
      return
    }
    const next = batches?.next()
    if (!next || next.done) post({ kind: 'done' })
    else post({ kind: 'batch', pieces: next.value })
  } catch (err) {
    const text = err instanceof Error ? err.message : String(err)
    post({ kind: 'error', message: text, runError: err instanceof RunError })
  }
})
