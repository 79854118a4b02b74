/**
 * Entry point of the buffer thread: it owns the decision-log buffer (the SQLite connection) and
 * runs every statement on it, so SQLite's CPU time and fsync waits never hold the main thread,
 * which keeps serving HTTP meanwhile. Appends from many requests share one transaction (group
 * commit); each request is answered only after its commit. Started by BufferThread.
 */
import { type MessagePort, parentPort, workerData } from 'node:worker_threads'
import { type EventSpans, eventsOf } from '../../core/decision-events/index.js'
import { type Batch, DecisionBuffer } from '../../store/decision-buffer/index.js'
import {
  type AppendAnswer,
  type BufferReply,
  type BufferRequest,
  type BufferWorkerData,
  type OpenAnswer,
  toWireError,
  writeStats,
} from './buffer-protocol.js'
import { toWireClaim, type WireClaim } from './claimed-batch.js'
import { GroupCommitter } from './group-commit.js'
import { parseUpload } from './parse-upload.js'

const data = workerData as BufferWorkerData
const port = parentPort as MessagePort
const stats = new Float64Array(data.stats)
const post = (reply: BufferReply) => port.postMessage(reply)

let buffer: DecisionBuffer
let answer: OpenAnswer
try {
  buffer = DecisionBuffer.open({ ...data.options, onDrop: (drop) => post({ kind: 'drop', drop }) })
  answer = { ok: true, quarantinedTo: buffer.quarantinedTo, recoveredBatches: buffer.recoveredBatches }
  writeStats(stats, buffer.stats())
} catch (err) {
  answer = { ok: false, error: toWireError(err) }
}
data.openPort.postMessage(answer)
data.openPort.close()
const opened = new Int32Array(data.opened)
Atomics.store(opened, 0, 1)
Atomics.notify(opened, 0)

if (answer.ok) serve(buffer!)
else port.close()

function serve(buffer: DecisionBuffer): void {
  // Claims as the buffer returned them, without their texts (the main thread has those): later
  // calls name a batch by id.
  const batches = new Map<number, Batch>()
  const publish = () => {
    try {
      if (!buffer.isClosed) writeStats(stats, buffer.stats())
    } catch (err) {
      post({
        kind: 'log',
        level: 'warn',
        message: 'cannot read decision-log buffer stats',
        error: toWireError(err),
      })
    }
  }
  // Counters are published before the requests of a commit are answered.
  const committer = new GroupCommitter(buffer, publish)

  const append = async (id: number, split: EventSpans) => {
    const outcome = await committer.submit(eventsOf(split))
    const value: AppendAnswer = { ok: true, outcome, events: split.count, malformed: split.malformed }
    post({ kind: 'done', id, value })
  }

  const call = (method: string, args: unknown[]): unknown => {
    const batchOf = (id: unknown): Batch => {
      const batch = batches.get(id as number)
      if (!batch) throw new Error(`batch ${String(id)} is not in flight`)
      return batch
    }
    // A claim ends once its last event is acknowledged or dead-lettered.
    const settle = (batch: Batch, toSeq: unknown) => {
      if ((toSeq as number) >= batch.lastSeq) batches.delete(batch.id)
    }
    switch (method) {
      case 'claim': {
        const batch = buffer.claim(args[0] as number, args[1] as number)
        if (!batch) return undefined
        batches.set(batch.id, { ...batch, texts: [] })
        return toWireClaim(batch)
      }
      case 'shrink': {
        const batch = buffer.shrink(batchOf(args[0]), args[1] as number)
        batches.set(batch.id, batch)
        return undefined
      }
      case 'acknowledge': {
        const batch = batchOf(args[0])
        buffer.acknowledge(batch, args[1] as number, args[2] as number)
        settle(batch, args[2])
        return undefined
      }
      case 'acknowledgeMany': {
        const ranges = (args[0] as Array<[number, number, number]>).map(([id, fromSeq, toSeq]) => ({
          batch: batchOf(id),
          fromSeq,
          toSeq,
        }))
        buffer.acknowledgeMany(ranges)
        for (const r of ranges) settle(r.batch, r.toSeq)
        return undefined
      }
      case 'deadLetter': {
        const batch = batchOf(args[0])
        const [, why, fromSeq, toSeq] = args as [
          number,
          Parameters<DecisionBuffer['deadLetter']>[1],
          number,
          number,
        ]
        const moved = buffer.deadLetter(batch, why, fromSeq, toSeq)
        settle(batch, toSeq)
        return moved
      }
      case 'recordFailure':
        return buffer.recordFailure(batchOf(args[0]), args[1] as number, args[2] as string)
      case 'releaseAll':
        batches.clear()
        return buffer.releaseAll()
      case 'listInFlight':
        return buffer.listInFlight()
      case 'listDeadBatches':
        return buffer.listDeadBatches(args[0] as number | undefined)
      case 'deadBatchEvents':
        return buffer.deadBatchEvents(args[0] as number)
      case 'redrive':
        return buffer.redrive(args[0] as number[] | undefined)
      case 'peek':
        return buffer.peek(args[0] as number)
      case 'refresh':
        return undefined
      case 'probeWrite':
        return buffer.probeWrite()
      default:
        throw new Error(`unknown buffer method ${method}`)
    }
  }

  const onRequest = (request: BufferRequest) => {
    const fail = (err: unknown) => post({ kind: 'failed', id: request.id, error: toWireError(err) })
    if (request.kind === 'append') {
      append(request.id, request.split).catch(fail)
      return
    }
    if (request.kind === 'parser') {
      request.port.on('message', onRequest)
      return
    }
    if (request.kind === 'appendRaw') {
      const parsed = parseUpload(request.raw, request.encoding, request.maxDecompressedBytes)
      if (!parsed.ok) post({ kind: 'done', id: request.id, value: parsed satisfies AppendAnswer })
      else append(request.id, parsed.split).catch(fail)
      return
    }
    if (request.method === 'close') {
      // Whatever was submitted before the close is committed first.
      committer
        .idle()
        .then(() => {
          buffer.close()
          post({ kind: 'done', id: request.id, value: undefined })
          port.close()
        })
        .catch(fail)
      return
    }
    try {
      const value = call(request.method, request.args)
      publish()
      // A claim's body moves to the main thread without a copy.
      const transfer = request.method === 'claim' && value ? [(value as WireClaim).body.buffer] : []
      port.postMessage(
        { kind: 'done', id: request.id, value } satisfies BufferReply,
        transfer as ArrayBuffer[],
      )
    } catch (err) {
      publish()
      fail(err)
    }
  }
  port.on('message', onRequest)
}
