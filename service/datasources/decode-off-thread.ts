/**
 * Decoding without holding the event loop: a document of up to OFF_THREAD_BYTES is decoded in
 * place (a few milliseconds at most); a larger one is decoded by a worker thread of its own
 * (decode-worker.ts) and received in small batches (decode-transfer.ts), so the service keeps
 * answering while a datasource reads 50 MB of JSON, YAML or XML. At most MAX_DECODE_WORKERS decode
 * at once; further large decodes wait their turn. Errors are decode.ts's, positions included.
 * decodeToText goes further for one large document: the worker decodes, filters and writes the
 * stored text, so the tree never comes back to the main thread.
 */
import type { Worker } from 'node:worker_threads'
import { prepareModuleWorker, startModuleWorker } from '../../core/workers/start-worker.js'
import { type ContentFormat, decodeContent } from './decode.js'
import type { FromDecodeWorker, ToDecodeWorker, WorkerFilter } from './decode-protocol.js'
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
    const assembler = new DocumentAssembler()
    await onWorker(
      { kind: 'decode', bytes, format, where, maxYamlNodes, output: 'pieces' },
      { heapMb, signal: options.signal, where },
      (message) => {
        if (message.kind === 'batch') for (const piece of message.pieces) assembler.add(piece)
      },
    )
    return assembler.document
  } finally {
    release()
  }
}

/**
 * A large document's stored form, made on a worker: its JSON text as parts in order (about 1 MiB
 * each, none ending inside a surrogate pair; not joined, which would copy all of it at once),
 * its item count and ETag.
 */
export interface DocumentText {
  parts: string[]
  items: number
  etag: string
}

/**
 * Decodes `bytes` and runs `filter` (when given) on one worker thread, answering the stored form
 * of the result (stringifyJsonDocument's text, decode.ts's itemCount, documentEtag), received in
 * parts of about 1 MiB: the decoded tree stays on the worker (less heap on the main thread, no
 * transfer of it, no second worker for the filter). Errors are those decodeDocument and the
 * filter (filter.ts) give. `bytes` moves to the worker: the caller must not read it again.
 * @throws RunError naming the format, `where` and the position, or the filter's error.
 */
export async function decodeToText(
  bytes: Uint8Array,
  format: ContentFormat,
  where: string,
  maxYamlNodes: number,
  filter: WorkerFilter | undefined,
  options: DecodeOptions = {},
): Promise<DocumentText> {
  const release = await workerTurn()
  try {
    options.signal?.throwIfAborted()
    const heapMb = options.maxHeapMb ?? decodeHeapMb(bytes.byteLength)
    const parts: string[] = []
    const end = await onWorker(
      { kind: 'decode', bytes, format, where, maxYamlNodes, output: 'text', ...(filter ? { filter } : {}) },
      { heapMb, signal: options.signal, where, filtering: filter !== undefined, transfer: true },
      (message) => {
        if (message.kind === 'text') parts.push(message.part)
      },
    )
    return { parts, items: end.items ?? 0, etag: end.etag ?? '' }
  } finally {
    release()
  }
}

interface WorkerRun {
  heapMb: number
  signal: AbortSignal | undefined
  where: string
  /** The worker filters too (its failures name the filter). */
  filtering?: boolean
  /** The bytes may move to the worker (the caller does not read them again). */
  transfer?: boolean
}

/**
 * Starts a decode worker with `task`, hands each batch or text part to `receive` and asks for the
 * next one, until the worker's `done` (resolved) or its error (rejected as a RunError).
 */
async function onWorker(
  task: ToDecodeWorker,
  run: WorkerRun,
  receive: (message: FromDecodeWorker) => void,
): Promise<Extract<FromDecodeWorker, { kind: 'done' }>> {
  // Off the event loop in a source checkout: esbuild builds the worker in its own process.
  await prepareModuleWorker(import.meta.url, 'decode-worker')
  run.signal?.throwIfAborted()
  const { heapMb, signal, where } = run
  return new Promise((resolve, reject) => {
    const worker: Worker = startModuleWorker(import.meta.url, 'decode-worker', {
      resourceLimits: { maxOldGenerationSizeMb: heapMb },
    })
    let settled = false
    const finish = (outcome: Extract<FromDecodeWorker, { kind: 'done' }> | Error) => {
      if (settled) return
      settled = true
      signal?.removeEventListener('abort', abort)
      void worker.terminate()
      if (outcome instanceof Error) reject(outcome)
      else resolve(outcome)
    }
    const abort = () =>
      finish(
        new RunError(
          run.filtering
            ? 'filter error: the filter was stopped'
            : `decode error: ${where}: the decode was stopped`,
        ),
      )
    signal?.addEventListener('abort', abort, { once: true })
    const send = (message: ToDecodeWorker) => worker.postMessage(message)
    worker.on('message', (message: FromDecodeWorker) => {
      if (settled) return
      if (message.kind === 'batch' || message.kind === 'text') {
        try {
          receive(message)
        } catch (err) {
          finish(new RunError(`decode error: ${where}: ${err instanceof Error ? err.message : String(err)}`))
          return
        }
        send({ kind: 'next' })
      } else if (message.kind === 'done') finish(message)
      else
        finish(
          new RunError(message.runError ? message.message : `decode error: ${where}: ${message.message}`),
        )
    })
    worker.on('error', (err) =>
      finish(
        new RunError(
          (err as { code?: string }).code === 'ERR_WORKER_OUT_OF_MEMORY'
            ? run.filtering
              ? `filter error: decoding and filtering ${where} needs more than ${heapMb} MiB`
              : `decode error: ${where}: the document needs more than ${heapMb} MiB to decode`
            : `decode error: ${where}: the decoder failed: ${err.message}`,
        ),
      ),
    )
    worker.on('exit', (code) =>
      finish(new RunError(`decode error: ${where}: the decoder stopped (exit ${code})`)),
    )
    // The fetched bytes move to the worker instead of being copied, when they own their memory
    // (Buffer.concat's result for a large body): a copy of 50 MB holds the main thread too.
    const bytes = task.kind === 'decode' && run.transfer ? task.bytes : undefined
    const movable =
      bytes !== undefined &&
      bytes.byteOffset === 0 &&
      bytes.byteLength === bytes.buffer.byteLength &&
      bytes.buffer instanceof ArrayBuffer
    worker.postMessage(task, movable ? [bytes.buffer as ArrayBuffer] : [])
  })
}
