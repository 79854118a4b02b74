/**
 * Decoding without holding the event loop: a document of up to OFF_THREAD_BYTES is decoded in
 * place (a few milliseconds at most); a larger one is decoded by a worker thread of its own
 * (decode-worker.ts) and received in small batches (decode-transfer.ts), so the service keeps
 * answering while a datasource reads 50 MB of JSON, YAML or XML. At most MAX_DECODE_WORKERS decode
 * at once; further large decodes wait their turn. Errors are decode.ts's, positions included.
 */
import type { Worker } from 'node:worker_threads'
import { startModuleWorker } from '../../core/workers/start-worker.js'
import { type ContentFormat, decodeContent } from './decode.js'
import type { FromDecodeWorker, ToDecodeWorker } from './decode-protocol.js'
import { DocumentAssembler } from './decode-transfer.js'
import { RunError } from './types.js'

/** Documents larger than this (bytes) are decoded on a worker thread. */
export const OFF_THREAD_BYTES = 1024 * 1024

/** Large decodes and filters running at once (each on a worker of its own); the rest wait. */
export const MAX_DECODE_WORKERS = 2

let running = 0
const waiting: Array<() => void> = []

/**
 * Waits for a free worker slot (shared by large decodes and large filters, filter-off-thread.ts);
 * resolves to the function that frees it.
 */
export async function workerTurn(): Promise<() => void> {
  if (running >= MAX_DECODE_WORKERS) await new Promise<void>((resolve) => waiting.push(resolve))
  running++
  let released = false
  return () => {
    if (released) return
    released = true
    running--
    waiting.shift()?.()
  }
}

/**
 * Heap of a decode worker: about 32 times the document (what a parsed JSON document of small
 * values takes, with room to spare), at least 256 MiB, at most 4 GiB. Past it only the worker
 * dies (a document crafted to blow up cannot take the service down) and the run fails.
 */
export function decodeHeapMb(bytes: number): number {
  return Math.min(4096, Math.max(256, Math.ceil((bytes / (1024 * 1024)) * 32)))
}

/** Options of {@link decodeDocument}. */
export interface DecodeOptions {
  /** Stops a decode in progress (its worker is terminated). */
  signal?: AbortSignal
  /** Bytes above which the decode leaves the main thread (OFF_THREAD_BYTES; tests set less). */
  offThreadBytes?: number
  /** The worker's heap in MiB (decodeHeapMb of the document; tests set less). */
  maxHeapMb?: number
}

/**
 * The document in `bytes` read as `format` (decode.ts's decodeContent), on a worker thread when
 * it is large.
 * @throws RunError naming the format, `where` and the position of the error.
 */
export async function decodeDocument(
  bytes: Uint8Array,
  format: ContentFormat,
  where: string,
  maxYamlNodes: number,
  options: DecodeOptions = {},
): Promise<unknown> {
  if (bytes.byteLength <= (options.offThreadBytes ?? OFF_THREAD_BYTES))
    return decodeContent(bytes, format, where, maxYamlNodes)
  const release = await workerTurn()
  try {
    options.signal?.throwIfAborted()
    const heapMb = options.maxHeapMb ?? decodeHeapMb(bytes.byteLength)
    return await decodeOnWorker(bytes, format, where, maxYamlNodes, heapMb, options.signal)
  } finally {
    release()
  }
}

function decodeOnWorker(
  bytes: Uint8Array,
  format: ContentFormat,
  where: string,
  maxYamlNodes: number,
  heapMb: number,
  signal: AbortSignal | undefined,
): Promise<unknown> {
  return new Promise((resolve, reject) => {
    const worker: Worker = startModuleWorker(import.meta.url, 'decode-worker', {
      resourceLimits: { maxOldGenerationSizeMb: heapMb },
    })
    const assembler = new DocumentAssembler()
    let settled = false
    const finish = (err: Error | undefined) => {
      if (settled) return
      settled = true
      signal?.removeEventListener('abort', abort)
      void worker.terminate()
      if (err) reject(err)
      else resolve(assembler.document)
    }
    const abort = () => finish(new RunError(`decode error: ${where}: the decode was stopped`))
    signal?.addEventListener('abort', abort, { once: true })
    const send = (message: ToDecodeWorker) => worker.postMessage(message)
    worker.on('message', (message: FromDecodeWorker) => {
      if (settled) return
      if (message.kind === 'batch') {
        try {
          for (const piece of message.pieces) assembler.add(piece)
        } catch (err) {
          finish(new RunError(`decode error: ${where}: ${err instanceof Error ? err.message : String(err)}`))
          return
        }
        send({ kind: 'next' })
      } else if (message.kind === 'done') finish(undefined)
      else
        finish(
          new RunError(message.runError ? message.message : `decode error: ${where}: ${message.message}`),
        )
    })
    worker.on('error', (err) =>
      finish(
        new RunError(
          (err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? `decode error: ${where}: the document needs more than ${heapMb} MiB to decode`
            : `decode error: ${where}: the decoder failed: ${err.message}`,
        ),
      ),
    )
    worker.on('exit', (code) =>
      finish(new RunError(`decode error: ${where}: the decoder stopped (exit ${code})`)),
    )
    send({ kind: 'decode', bytes, format, where, maxYamlNodes })
  })
}
