/**
 * Where a datasource's data goes: the data document at the datasource's id, written in the same
 * transaction as its status, so a reader sees either the old data with the old status or the new
 * with the new. A document under `systems/<sys>/` bumps that system's content version; the
 * caller rebuilds its bundle after the commit. Unchanged data writes nothing (no new revision).
 */
import type { ChunkedText, ServiceRepositories, ServiceStore } from '../../store/service/index.js'
import { upsertedBy } from '../../store/service/index.js'
import { etagYielding, stringifyYielding } from '../json-text-yielding.js'

/** Who the audit columns of datasource-written documents name. */
export const DATASOURCE_ACTOR = { by: 'datasource', through: 'datasource' }

/**
 * A datasource's data as it is stored: its JSON text as parts in order (a worker's text arrives
 * in parts, and joining tens of MB copies them at once; no part ends inside a surrogate pair),
 * the text's length and its ETag.
 */
export interface DatasourceText {
  parts: readonly string[]
  length: number
  etag: string
}

/**
 * The stored form of `content`, written in slices that yield to the event loop (tens of MB from
 * a run). Before the transaction: a transaction holds the database while it is open.
 */
export async function datasourceText(content: unknown): Promise<DatasourceText> {
  return preparedText(await stringifyYielding(content))
}

/**
 * The stored form of data already written as JSON text (a filter's result, filter-off-thread.ts;
 * a worker's decode, decode-off-thread.ts, which gives its `etag` too).
 */
export async function preparedText(text: string | readonly string[], etag?: string): Promise<DatasourceText> {
  const parts = typeof text === 'string' ? [text] : text
  const length = parts.reduce((sum, part) => sum + part.length, 0)
  return { parts, length, etag: etag ?? (await etagYielding(parts)) }
}

/** Texts longer than this (UTF-16 code units) are written in chunks before the transaction. */
export const CHUNKED_TEXT_CHARS = 1024 * 1024

/**
 * Stores `prepared` (datasourceText) as the data of datasource `id` inside the caller's
 * transaction, with its text inline; resolves to true when the document changed (the system's
 * bundle must be rebuilt). For small texts (the `rest` pushes); runs use storeRunData.
 */
export async function writeDatasourceData(
  tx: ServiceRepositories,
  id: string,
  systemId: string | null,
  prepared: DatasourceText,
): Promise<boolean> {
  return (await writeDocument(tx, id, systemId, prepared, undefined)).changed
}

async function writeDocument(
  tx: ServiceRepositories,
  id: string,
  systemId: string | null,
  prepared: DatasourceText,
  chunked: ChunkedText | undefined,
): Promise<{ changed: boolean; replaced?: string }> {
  const { parts, etag } = prepared
  // Only the ETag is compared: the stored value is not read back.
  const existing = await tx.dataDocuments.getMeta(id)
  if (existing?.etag === etag) return { changed: false }
  const actor = { by: `${DATASOURCE_ACTOR.by}:${id}`, through: DATASOURCE_ACTOR.through }
  const row = { path: id, system_id: systemId, etag, ...upsertedBy(actor, existing) }
  const replaced = chunked
    ? await tx.dataDocuments.upsertChunked(row, chunked)
    : await tx.dataDocuments.upsert({ ...row, value: parts.join('') })
  if (systemId !== null) await tx.systems.bumpContentVersion(systemId)
  return { changed: true, replaced }
}

/**
 * Stores a run's data: `inside` (the run's status, inside the transaction; false: store nothing)
 * and the data document in one transaction. A text of more than CHUNKED_TEXT_CHARS is first
 * written in chunks outside it (each its own small commit, the event loop given back between:
 * data-chunks.ts), so the transaction itself stays small; the document switches to the chunks in
 * it, atomically with the status. Resolves to true when the document changed, false when it was
 * equal, undefined when `inside` said no.
 *
 * What happens to the chunks: committed and referred to, they are the document; the document's
 * previous chunks are deleted after the commit. Not referred to (unchanged data, `inside` said
 * no), they are deleted. A failed transaction leaves them to the sweep (data-chunks.ts): a commit
 * whose outcome is unknown may have stored them.
 */
export async function storeRunData(
  store: ServiceStore,
  id: string,
  systemId: string | null,
  prepared: DatasourceText,
  inside: (tx: ServiceRepositories) => Promise<boolean>,
): Promise<boolean | undefined> {
  const { chunks } = store.dataDocuments
  const large = prepared.length > CHUNKED_TEXT_CHARS
  // Unchanged data (the usual poll) writes no chunks; the transaction checks again.
  const chunked =
    large && (await store.dataDocuments.getMeta(id))?.etag !== prepared.etag
      ? await chunks.write(prepared.parts)
      : undefined
  let outcome: { changed: boolean; replaced?: string } | undefined
  try {
    outcome = await store.transaction(async (tx) => {
      if (!(await inside(tx))) return undefined
      return writeDocument(tx, id, systemId, prepared, chunked)
    })
  } catch (err) {
    if (chunked) chunks.settled(chunked.blob)
    throw err
  }
  if (chunked) {
    if (outcome?.changed) chunks.settled(chunked.blob)
    else await chunks.release(chunked.blob)
  }
  if (outcome?.replaced) await chunks.release(outcome.replaced)
  return outcome?.changed
}
