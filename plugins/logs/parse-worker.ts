/**
 * Entry point of a parse worker thread: takes raw upload bodies and splits them (see
 * parse-upload.ts). A request that names a buffer ticket has its events sent straight to the
 * buffer thread (through the port in `workerData.buffer`), so the event texts never pass
 * through the main thread; the main thread then only hears `{ ok: true, forwarded: true }`.
 * Started by ParsePool.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads'
import type { BufferRequest } from './buffer-protocol.js'
import { parseUpload } from './parse-upload.js'

/** A request to a parse worker. */
export interface ParseRequest {
  id: number
  raw: Uint8Array
  encoding: string
  maxDecompressedBytes: number
  /** Id of the buffer thread's append the events go to; absent: answer with the events. */
  ticket?: number
}

/** What a parse worker is started with. */
export interface ParseWorkerData {
  /** Where forwarded events go (the buffer thread), when the pool has one. */
  buffer?: MessagePort
}

const bufferPort = (workerData as ParseWorkerData | undefined)?.buffer

parentPort?.on('message', (req: ParseRequest) => {
  let result: ReturnType<typeof parseUpload> | { ok: false; status: 500; message: string }
  try {
    result = parseUpload(req.raw, req.encoding, req.maxDecompressedBytes)
  } catch (err) {
    result = { ok: false, status: 500, message: (err as Error).message }
  }
  if (result.ok && req.ticket !== undefined && bufferPort) {
    const append: BufferRequest = { kind: 'append', id: req.ticket, split: result.split }
    bufferPort.postMessage(append, [result.split.spans.buffer as ArrayBuffer])
    parentPort!.postMessage({ id: req.id, result: { ok: true, forwarded: true } })
    return
  }
  // The spans move to the main thread instead of being copied.
  parentPort!.postMessage({ id: req.id, result }, result.ok ? [result.split.spans.buffer as ArrayBuffer] : [])
})
