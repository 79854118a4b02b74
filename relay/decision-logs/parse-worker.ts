/**
 * Entry point of a parse worker thread: takes raw upload bodies, answers with their events (see
 * parse-upload.ts). Started by ParsePool.
 */
import { parentPort } from 'node:worker_threads'
import { parseUpload } from './parse-upload.js'

/** A request to a parse worker. */
export interface ParseRequest {
  id: number
  raw: Uint8Array
  encoding: string
  maxDecompressedBytes: number
}

parentPort?.on('message', (req: ParseRequest) => {
  let result: ReturnType<typeof parseUpload> | { ok: false; status: 500; message: string }
  try {
    result = parseUpload(req.raw, req.encoding, req.maxDecompressedBytes)
  } catch (err) {
    result = { ok: false, status: 500, message: (err as Error).message }
  }
  // The spans move to the main thread instead of being copied.
  parentPort!.postMessage({ id: req.id, result }, result.ok ? [result.split.spans.buffer as ArrayBuffer] : [])
})
