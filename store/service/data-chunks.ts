/**
 * Large document texts in slices (data_document_chunks, migration 0011). One statement writing
 * or reading tens of MB holds the event loop for hundreds of milliseconds on SQLite (better-sqlite3
 * is synchronous) and makes one commit flush all of it. Here every slice is its own statement
 * (and, written outside a transaction, its own small commit), with the event loop given back in
 * between. A blob is written whole before any document refers to it and is never changed after,
 * so a document switches to it in one small transaction (data-documents.ts); the blob it leaves
 * is deleted slice by slice once that transaction committed.
 */
import { randomUUID } from 'node:crypto'
import type { Kysely } from 'kysely'
import type { ServiceTables } from './tables.js'

/** UTF-16 code units of text per chunk (1 to 3 MiB of UTF-8: about a millisecond to write). */
export const CHUNK_CHARS = 1024 * 1024
/** Chunks read, or deleted, by one statement. */
const CHUNKS_PER_STATEMENT = 1
/** A blob nothing refers to is swept once this old: older than any write still switching to it. */
export const ORPHAN_AGE_MS = 15 * 60 * 1000

/** Where a document's text is when it is stored in chunks. */
export interface ChunkedText {
  blob: string
  /** The text's length in UTF-16 code units: a read that finds less met a blob being deleted. */
  length: number
}

/** Blobs this process is writing and has not handed to a document yet: never swept. */
const inFlight = new Set<string>()

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** `text` cut in chunks of about CHUNK_CHARS, never between the two halves of a surrogate pair. */
export function* textChunks(text: string, size = CHUNK_CHARS): Generator<string> {
  let at = 0
  while (at < text.length) {
    let end = Math.min(text.length, at + size)
    const last = text.charCodeAt(end - 1)
    // A lone half would be stored as U+FFFD: keep the pair together.
    if (end < text.length && last >= 0xd800 && last <= 0xdbff) end++
    yield text.slice(at, end)
    at = end
  }
}

/** Reads and writes the `data_document_chunks` table. */
export class DataChunkRepository {
  constructor(private readonly db: Kysely<ServiceTables>) {}

  /**
   * Writes a text, given whole or as its parts in order (each cut further to CHUNK_CHARS; no part
   * may end between the halves of a surrogate pair), as a new blob, one chunk per statement,
   * yielding in between; resolves once all of it is stored. Call outside a transaction (each
   * chunk then commits on its own); hand the result to a document
   * (DataDocumentRepository.upsertChunked) or to `release`.
   */
  async write(text: string | readonly string[], chunkChars = CHUNK_CHARS): Promise<ChunkedText> {
    const blob = randomUUID()
    inFlight.add(blob)
    const createdAt = new Date().toISOString()
    let length = 0
    try {
      let seq = 0
      for (const part of typeof text === 'string' ? [text] : text) {
        for (const chunk of textChunks(part, chunkChars)) {
          await this.db
            .insertInto('data_document_chunks')
            .values({ blob, seq, text: chunk, created_at: createdAt })
            .execute()
          seq++
          length += chunk.length
          await nextTurn()
        }
      }
    } catch (err) {
      await this.release(blob).catch(() => {})
      inFlight.delete(blob)
      throw err
    }
    return { blob, length }
  }

  /** The blob is referred to (or released): the sweep may judge it from now on. */
  settled(blob: string): void {
    inFlight.delete(blob)
  }

  /**
   * The text of `ref` as its chunks in order, read a chunk per statement with the event loop
   * given back in between (joining them is left to readers that need one string: a bundle
   * encodes them one by one); undefined when it is not all there (the blob is being deleted: the
   * document moved on).
   */
  async readParts(ref: ChunkedText): Promise<string[] | undefined> {
    const parts: string[] = []
    let length = 0
    for (let seq = 0; length < ref.length; seq += CHUNKS_PER_STATEMENT) {
      const rows = await this.db
        .selectFrom('data_document_chunks')
        .select(['seq', 'text'])
        .where('blob', '=', ref.blob)
        .where('seq', '>=', seq)
        .where('seq', '<', seq + CHUNKS_PER_STATEMENT)
        .orderBy('seq')
        .execute()
      if (rows.length === 0) return undefined
      for (const row of rows) {
        parts.push(row.text)
        length += row.text.length
      }
      if (length < ref.length) await nextTurn()
    }
    return length === ref.length ? parts : undefined
  }

  /** Deletes a blob nothing refers to any more, a chunk per statement (from the first). */
  async release(blob: string): Promise<void> {
    for (;;) {
      const first = await this.db
        .selectFrom('data_document_chunks')
        .select('seq')
        .where('blob', '=', blob)
        .orderBy('seq')
        .limit(1)
        .executeTakeFirst()
      if (!first) break
      await this.db
        .deleteFrom('data_document_chunks')
        .where('blob', '=', blob)
        .where('seq', '<', Number(first.seq) + CHUNKS_PER_STATEMENT)
        .execute()
      await nextTurn()
    }
    inFlight.delete(blob)
  }

  /**
   * Deletes the blobs no document refers to that are older than `ageMs` and not being written by
   * this process (left by a crash between writing and switching, or by a document replaced or
   * deleted through a path that does not release); resolves to how many.
   */
  async sweep(ageMs = ORPHAN_AGE_MS, now = Date.now()): Promise<number> {
    const cutoff = new Date(now - ageMs).toISOString()
    const orphans = await this.db
      .selectFrom('data_document_chunks')
      .select('blob')
      .where((eb) =>
        eb.not(
          eb.exists(
            eb
              .selectFrom('data_documents')
              .select('path')
              .whereRef('data_documents.value_blob', '=', 'data_document_chunks.blob'),
          ),
        ),
      )
      .groupBy('blob')
      .having((eb) => eb.fn.min('created_at'), '<', cutoff)
      .execute()
    let swept = 0
    for (const { blob } of orphans) {
      if (inFlight.has(blob)) continue
      await this.release(blob)
      swept++
    }
    return swept
  }
}
