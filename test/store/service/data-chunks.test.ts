/**
 * Large data documents stored in chunks (store/service/data-chunks.ts, migration 0011): a chunked
 * text reads back exactly (surrogate pairs across chunk boundaries included), a reader that meets
 * its blob being deleted reads the document again, and the sweep deletes only blobs nothing refers
 * to that are old enough and not being written. On SQLite and (when configured) PostgreSQL.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createdBy, type ServiceStore, textChunks } from '../../../store/service/index.js'
import { BACKENDS, openTestStore } from '../backends.js'

const actor = { by: 'test', through: 'test' }

/** A text whose chunks of 8 would end between the halves of an emoji's surrogate pair. */
const TRICKY = `${'a'.repeat(7)}😀${'b'.repeat(6)}😀é${'c'.repeat(20)}`

describe('textChunks', () => {
  it('cuts at the size without ever splitting a surrogate pair, and loses nothing', () => {
    const chunks = [...textChunks(TRICKY, 8)]
    expect(chunks.join('')).toBe(TRICKY)
    for (const chunk of chunks) {
      const last = chunk.charCodeAt(chunk.length - 1)
      expect(last >= 0xd800 && last <= 0xdbff).toBe(false)
      expect(chunk.length).toBeLessThanOrEqual(9)
    }
    expect(chunks[0]).toBe('aaaaaaa😀')
    expect([...textChunks('', 8)]).toEqual([])
  })
})

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`data documents in chunks on ${backend.name}`, () => {
    let store: ServiceStore
    let close: () => Promise<void>

    beforeAll(async () => {
      ;({ store, close } = await openTestStore(backend))
    })
    afterAll(async () => close?.())

    /** How many chunks of `chunked` are stored (0 when any is missing: it is being deleted or gone). */
    const chunkCount = async (chunked: { blob: string; length: number }) =>
      (await store.dataDocuments.chunks.readParts(chunked))?.length ?? 0
    const row = (path: string) => ({ path, system_id: null, etag: `"${path}"`, ...createdBy(actor) })

    it('reads a chunked document back exactly, through every reader', async () => {
      const text = JSON.stringify({ s: TRICKY.repeat(3), n: 1 })
      const chunked = await store.dataDocuments.chunks.write([text.slice(0, 10), text.slice(10)], 8)
      expect(await chunkCount(chunked)).toBeGreaterThan(5)
      expect(await store.dataDocuments.upsertChunked(row('c/doc'), chunked)).toBeUndefined()
      store.dataDocuments.chunks.settled(chunked.blob)
      expect((await store.dataDocuments.get('c/doc'))?.value).toBe(text)
      expect((await store.dataDocuments.getMany(['c/doc']))[0]?.value).toBe(text)
      expect((await store.dataDocuments.listBelow('c'))[0]?.value).toBe(text)
      expect(await store.dataDocuments.getMeta('c/doc')).toMatchObject({ etag: '"c/doc"' })
      // Replaced by an inline value: the old blob is handed back for release.
      const replaced = await store.dataDocuments.upsert({ ...row('c/doc'), value: '{"small":true}' })
      expect(replaced).toBe(chunked.blob)
      await store.dataDocuments.chunks.release(chunked.blob)
      expect(await chunkCount(chunked)).toBe(0)
      expect((await store.dataDocuments.get('c/doc'))?.value).toBe('{"small":true}')
    })

    it('gives the parts of a system document without joining them', async () => {
      const text = JSON.stringify({ list: Array.from({ length: 30 }, (_, i) => `item-${i}`) })
      const chunked = await store.dataDocuments.chunks.write(text, 16)
      await store.dataDocuments.upsertChunked(
        { ...row('systems/sys-chunks/list'), system_id: 'sys-chunks' },
        chunked,
      )
      store.dataDocuments.chunks.settled(chunked.blob)
      const [doc] = await store.dataDocuments.listForSystemParts('sys-chunks')
      expect(doc!.parts.length).toBeGreaterThan(1)
      expect(doc!.parts.join('')).toBe(text)
    })

    it('reads a document again when its blob is deleted while it is read', async () => {
      const first = await store.dataDocuments.chunks.write('"first-version-of-the-text"', 4)
      await store.dataDocuments.upsertChunked(row('c/moving'), first)
      const second = await store.dataDocuments.chunks.write('"second-version"', 4)
      // The document moves on and its first blob is deleted, as a run does after its commit: a
      // reader still holding the first blob's reference finds it incomplete and reads the row again.
      expect(await store.dataDocuments.upsertChunked(row('c/moving'), second)).toBe(first.blob)
      await store.dataDocuments.chunks.release(first.blob)
      expect(await store.dataDocuments.chunks.readParts(first)).toBeUndefined()
      expect((await store.dataDocuments.get('c/moving'))?.value).toBe('"second-version"')
      store.dataDocuments.chunks.settled(second.blob)
    })

    it('sweeps only old blobs that nothing refers to and nobody is writing', async () => {
      const referenced = await store.dataDocuments.chunks.write('"kept"', 2)
      await store.dataDocuments.upsertChunked(row('c/kept'), referenced)
      store.dataDocuments.chunks.settled(referenced.blob)
      const orphan = await store.dataDocuments.chunks.write('"left by a crash"', 4)
      store.dataDocuments.chunks.settled(orphan.blob)
      const writing = await store.dataDocuments.chunks.write('"being switched to"', 4)
      // Young orphans are kept: another replica may be about to switch to them.
      expect(await store.dataDocuments.chunks.sweep(60_000)).toBe(0)
      expect(await chunkCount(orphan)).toBeGreaterThan(0)
      const later = Date.now() + 120_000
      expect(await store.dataDocuments.chunks.sweep(60_000, later)).toBeGreaterThanOrEqual(1)
      expect(await chunkCount(orphan)).toBe(0)
      expect(await chunkCount(writing)).toBeGreaterThan(0)
      expect((await store.dataDocuments.get('c/kept'))?.value).toBe('"kept"')
      await store.dataDocuments.chunks.release(writing.blob)
    })
  })
}
