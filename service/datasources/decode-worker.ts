/**
 * A decode worker (started by decode-off-thread.ts for one large document): decodes the bytes it
 * is sent with decode.ts, then answers each `next` with the next batch of the document's pieces
 * (decode-transfer.ts), so the main thread receives it a little at a time.
 */
import { parentPort } from 'node:worker_threads'
import { decodeContent } from './decode.js'
import type { FromDecodeWorker, ToDecodeWorker } from './decode-protocol.js'
import { type Piece, pieceBatches } from './decode-transfer.js'
import { RunError } from './types.js'

const port = parentPort
if (!port) throw new Error('decode-worker runs on a worker thread only')
const post = (message: FromDecodeWorker) => port.postMessage(message)
let batches: Generator<Piece[]> | undefined

port.on('message', (message: ToDecodeWorker) => {
  try {
    if (message.kind === 'decode') {
      const document = decodeContent(message.bytes, message.format, message.where, message.maxYamlNodes)
      batches = pieceBatches(document)
    }
    const next = batches?.next()
    if (!next || next.done) post({ kind: 'done' })
    else post({ kind: 'batch', pieces: next.value })
  } catch (err) {
    const text = err instanceof Error ? err.message : String(err)
    post({ kind: 'error', message: text, runError: err instanceof RunError })
  }
})
