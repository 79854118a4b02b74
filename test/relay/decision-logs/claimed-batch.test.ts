import { describe, expect, it } from 'vitest'
import { ClaimedBatch, toWireClaim } from '../../../plugins/logs/claimed-batch.js'

// Multi-byte characters, so byte offsets and string offsets differ.
const texts = ['{"a":"é"}', '{"b":"日本"}', '{"c":1}', '{"d":"😀"}']
const batch = {
  id: 7,
  firstSeq: 7,
  lastSeq: 10,
  seqs: [7, 8, 9, 10],
  texts,
  sizes: texts.map((t) => Buffer.byteLength(t)),
  bytes: texts.reduce((n, t) => n + Buffer.byteLength(t), 0),
}

describe('ClaimedBatch', () => {
  it('carries the upload body and gives back each event, any slice and the head', () => {
    const claimed = new ClaimedBatch(toWireClaim(batch))
    expect(claimed.arrayBody().toString()).toBe(`[${texts.join(',')}]`)
    expect(claimed.texts).toEqual(texts)
    expect(claimed.arrayBody(1, 3).toString()).toBe(`[${texts.slice(1, 3).join(',')}]`)
    expect(claimed.arrayBody(3, 4).toString()).toBe(`[${texts[3]}]`)
    const head = claimed.head(2)
    expect(head).toMatchObject({
      id: 7,
      firstSeq: 7,
      lastSeq: 8,
      seqs: [7, 8],
      bytes: batch.sizes[0]! + batch.sizes[1]!,
    })
    expect(head.texts).toEqual(texts.slice(0, 2))
    expect(head.arrayBody().toString()).toBe(`[${texts.slice(0, 2).join(',')}]`)
    expect(JSON.parse(head.arrayBody(1, 2).toString())).toEqual([{ b: '日本' }])
  })

  it('measures offsets itself, so a wrong stored size cannot shift the events', () => {
    const claimed = new ClaimedBatch(toWireClaim({ ...batch, sizes: [1, 1, 1, 1] }))
    expect(claimed.texts).toEqual(texts)
  })
})
