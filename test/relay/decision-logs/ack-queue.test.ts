import { describe, expect, it } from 'vitest'
import { AckQueue, type DeliveredRange, MAX_PENDING_RANGES } from '../../../plugins/logs/ack-queue.js'
import type { Batch } from '../../../store/decision-buffer/index.js'

const range = (id: number): DeliveredRange => ({
  batch: { id, firstSeq: id, lastSeq: id, seqs: [id], texts: [], sizes: [1], bytes: 1 } as Batch,
  fromSeq: id,
  toSeq: id,
})

/** A buffer whose commits finish when the test says so. */
function fakeBuffer() {
  const calls: number[][] = []
  const finish: Array<(err?: Error) => void> = []
  return {
    calls,
    finish,
    acknowledgeMany(ranges: readonly DeliveredRange[]) {
      calls.push(ranges.map((r) => r.batch.id))
      return new Promise<void>((resolve, reject) => finish.push((err) => (err ? reject(err) : resolve())))
    },
  }
}

const tick = () => new Promise((r) => setImmediate(r))

describe('AckQueue', () => {
  it('deletes ranges delivered during a commit together in the next one, in order', async () => {
    const buffer = fakeBuffer()
    const acks = new AckQueue(buffer)
    await acks.add(range(1))
    await acks.add(range(2))
    await acks.add(range(3))
    expect(buffer.calls).toEqual([[1]])
    expect(acks.pending).toBe(3)
    let flushed = false
    const flush = acks.flush().then(() => {
      flushed = true
    })
    buffer.finish[0]!()
    await tick()
    expect(buffer.calls).toEqual([[1], [2, 3]])
    expect(flushed).toBe(false)
    buffer.finish[1]!()
    await flush
    expect(acks.pending).toBe(0)
  })

  it('reports a failed commit once, at the next flush, and goes on with later ranges', async () => {
    const buffer = fakeBuffer()
    const acks = new AckQueue(buffer)
    await acks.add(range(1))
    buffer.finish[0]!(Object.assign(new Error('disk full'), { code: 'SQLITE_FULL' }))
    await tick()
    await acks.add(range(2))
    buffer.finish[1]!()
    await expect(acks.flush()).rejects.toThrow('disk full')
    await expect(acks.flush()).resolves.toBeUndefined()
    expect(buffer.calls).toEqual([[1], [2]])
  })

  it('makes the uploader wait once MAX_PENDING_RANGES delivered ranges are not deleted yet', async () => {
    const buffer = fakeBuffer()
    const acks = new AckQueue(buffer)
    for (let i = 1; i <= MAX_PENDING_RANGES; i++) await acks.add(range(i))
    let added = false
    const next = acks.add(range(MAX_PENDING_RANGES + 1)).then(() => {
      added = true
    })
    await tick()
    expect(added).toBe(false)
    buffer.finish[0]!()
    await next
    expect(buffer.calls[1]).toEqual(Array.from({ length: MAX_PENDING_RANGES }, (_, i) => i + 2))
    buffer.finish[1]!()
    await acks.flush()
  })
})
