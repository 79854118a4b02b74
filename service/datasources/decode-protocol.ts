/** The messages between decodeOffThread (decode-off-thread.ts) and its worker (decode-worker.ts). */
import type { ContentFormat } from './decode.js'
import type { Piece } from './decode-transfer.js'

/** From the main thread: what to decode, then one `next` per batch wanted. */
export type ToDecodeWorker =
  | { kind: 'decode'; bytes: Uint8Array; format: ContentFormat; where: string; maxYamlNodes: number }
  | { kind: 'next' }

/** From the worker: a batch of pieces, the end, or why decoding failed (a RunError's message). */
export type FromDecodeWorker =
  | { kind: 'batch'; pieces: Piece[] }
  | { kind: 'done' }
  | { kind: 'error'; message: string; runError: boolean }
