import { isLosslessNumber, LosslessNumber } from 'lossless-json'
import { describe, expect, it } from 'vitest'
import { decodeContent } from '../../../service/datasources/decode.js'
import { decodeDocument, decodeHeapMb } from '../../../service/datasources/decode-off-thread.js'
import { DocumentAssembler, pieceBatches } from '../../../service/datasources/decode-transfer.js'
import { jsonEqual } from '../../../service/json-document.js'

const bytes = (text: string) => new TextEncoder().encode(text)

/** A JSON text of about `count` users, with a number no double holds and a `__proto__` key. */
function usersJson(count: number): string {
  const users = Array.from({ length: count }, (_, i) => ({
    id: `user-${i}`,
    name: `User number ${i}`,
    groups: ['staff', `team-${i % 17}`],
    attributes: { level: i % 5, active: i % 3 !== 0, note: 'x'.repeat(i % 40) },
  }))
  const text = JSON.stringify({ meta: { total: count }, users })
  return text.replace('"total":', '"big": 12345678901234567890123, "__proto__": {"polluted": true}, "total":')
}

describe('pieces of a document', () => {
  it('reassemble to the same document, exact numbers and own __proto__ keys included', () => {
    const document = decodeContent(bytes(usersJson(500)), 'json', 'f', 1000)
    const assembler = new DocumentAssembler()
    let batches = 0
    for (const batch of pieceBatches(document, 2048)) {
      batches++
      // Structured clone, as postMessage does: class instances become plain objects.
      for (const piece of structuredClone(batch)) assembler.add(piece)
    }
    expect(batches).toBeGreaterThan(10)
    const back = assembler.document as { meta: Record<string, unknown> }
    expect(jsonEqual(back, document)).toBe(true)
    expect(isLosslessNumber(back.meta.big)).toBe(true)
    expect((back.meta.big as LosslessNumber).value).toBe('12345678901234567890123')
    expect(Object.hasOwn(back.meta, '__proto__')).toBe(true)
    expect(({} as Record<string, unknown>).polluted).toBeUndefined()
  })

  it('carry a lone exact number and scalars at the root', () => {
    for (const value of [new LosslessNumber('98765432109876543210'), 'text', null, 3]) {
      const assembler = new DocumentAssembler()
      for (const batch of pieceBatches(value))
        for (const piece of structuredClone(batch)) assembler.add(piece)
      expect(jsonEqual(assembler.document, value)).toBe(true)
    }
  })
})

describe('decodeDocument', () => {
  it('decodes small documents in place and large ones on a worker, to the same value', async () => {
    const text = usersJson(10_000)
    expect(text.length).toBeGreaterThan(1024 * 1024)
    const inline = decodeContent(bytes(text), 'json', 'f', 1000)
    const offThread = await decodeDocument(bytes(text), 'json', 'f', 1000)
    expect(jsonEqual(offThread, inline)).toBe(true)
    expect(await decodeDocument(bytes('{"a": [1]}'), 'json', 'f', 1000)).toEqual({ a: [1] })
  })

  it('decodes YAML and XML on a worker', async () => {
    const yaml = 'users:\n  - name: ann\n    id: 12345678901234567890\n  - name: bob\n'
    const fromYaml = (await decodeDocument(bytes(yaml), 'yaml', 'f.yaml', 1000, { offThreadBytes: 1 })) as {
      users: Array<Record<string, unknown>>
    }
    expect(fromYaml.users[1]).toEqual({ name: 'bob' })
    expect((fromYaml.users[0]!.id as LosslessNumber).value).toBe('12345678901234567890')
    const xml = '<users><user id="01">ann</user></users>'
    expect(await decodeDocument(bytes(xml), 'xml', 'f.xml', 1000, { offThreadBytes: 1 })).toEqual(
      decodeContent(bytes(xml), 'xml', 'f.xml', 1000),
    )
  })

  it('reports errors with the same positions as an inline decode', async () => {
    const cases: Array<[string, 'json' | 'yaml' | 'xml']> = [
      [`${usersJson(200).slice(0, -2)},\n}`, 'json'],
      ['a: 1\nb:\n  - x\n a: 2\n', 'yaml'],
      ['<a>\n<b></a>', 'xml'],
      ['<!DOCTYPE a [<!ENTITY e "x">]><a>&e;</a>', 'xml'],
    ]
    for (const [text, format] of cases) {
      let inline = ''
      try {
        decodeContent(bytes(text), format, 'src', 1000)
      } catch (err) {
        inline = (err as Error).message
      }
      expect(inline).toMatch(/decode error/)
      await expect(decodeDocument(bytes(text), format, 'src', 1000, { offThreadBytes: 1 })).rejects.toThrow(
        inline,
      )
    }
    await expect(
      decodeDocument(new Uint8Array([0xff, 0xfe, 0xfd]), 'json', 'src', 1000, { offThreadBytes: 1 }),
    ).rejects.toThrow('not UTF-8')
  })

  it('fails the decode, not the service, when a document needs more heap than its worker has', async () => {
    const text = bytes(usersJson(40_000))
    await expect(decodeDocument(text, 'json', 'big.json', 1000, { maxHeapMb: 16 })).rejects.toThrow(
      'decode error: big.json: the document needs more than 16 MiB to decode',
    )
    expect(decodeHeapMb(64 * 1024 * 1024)).toBe(2048)
    expect(decodeHeapMb(2 * 1024 * 1024)).toBe(256)
  }, 20_000)

  it('stops the worker when the signal aborts', async () => {
    const controller = new AbortController()
    const decoding = decodeDocument(bytes(usersJson(20_000)), 'json', 'src', 1000, {
      signal: controller.signal,
    })
    setTimeout(() => controller.abort(), 20)
    await expect(decoding).rejects.toThrow('the decode was stopped')
  })

  it('keeps the event loop ticking during a large decode', async () => {
    const text = bytes(usersJson(60_000))
    await decodeDocument(bytes(usersJson(100)), 'json', 'warm-up', 1000, { offThreadBytes: 1 })
    const started = performance.now()
    const inline = decodeContent(text, 'json', 'f', 1000)
    const inlineMs = performance.now() - started

    let last = performance.now()
    let maxGap = 0
    const ticker = setInterval(() => {
      const now = performance.now()
      maxGap = Math.max(maxGap, now - last)
      last = now
    }, 1)
    const offThreadStarted = performance.now()
    const loopBefore = performance.eventLoopUtilization()
    let decoded: unknown
    try {
      decoded = await decodeDocument(text, 'json', 'f', 1000)
    } finally {
      clearInterval(ticker)
    }
    const loop = performance.eventLoopUtilization(loopBefore)
    const offThreadMs = performance.now() - offThreadStarted
    expect(jsonEqual(decoded, inline)).toBe(true)
    // The event loop is mostly idle while the worker decodes (an inline decode keeps it busy the
    // whole time: utilization 1); measured about 0.2. Utilization counts time this thread waited
    // for events as idle, so a machine busy with other processes does not raise it, unlike the gap.
    expect(loop.utilization).toBeLessThan(0.5)
    // No single turn of the loop blocks for a large part of an inline decode. The bound is loose:
    // on a loaded machine the thread can be descheduled between two ticks (116 ms seen against
    // an inline decode of 338 ms).
    expect(maxGap).toBeLessThan(inlineMs / 2)
    console.log(
      `decode of ${(text.byteLength / 1e6).toFixed(1)} MB: ${inlineMs.toFixed(0)} ms inline; ${offThreadMs.toFixed(0)} ms on a worker with the longest event-loop gap ${maxGap.toFixed(1)} ms, loop utilization ${loop.utilization.toFixed(2)}`,
    )
  }, 30_000)
})
