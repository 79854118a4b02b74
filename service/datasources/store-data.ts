/**
 * Where a datasource's data goes: the data document at the datasource's id, written in the same
 * transaction as its status, so a reader sees either the old data with the old status or the new
 * with the new. A document under `systems/<sys>/` bumps that system's content version; the
 * caller rebuilds its bundle after the commit. Unchanged data writes nothing (no new revision).
 */
import type { ServiceRepositories } from '../../store/service/index.js'
import { upsertedBy } from '../../store/service/index.js'
import { etagYielding, stringifyYielding } from '../json-text-yielding.js'

/** Who the audit columns of datasource-written documents name. */
export const DATASOURCE_ACTOR = { by: 'datasource', through: 'datasource' }

/** A datasource's data as it is stored: its JSON text and ETag. */
export interface DatasourceText {
  text: string
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
export async function preparedText(text: string, etag?: string): Promise<DatasourceText> {
  return { text, etag: etag ?? (await etagYielding(text)) }
}

/**
 * Stores `prepared` (datasourceText) as the data of datasource `id` (inside the caller's
 * transaction); resolves to true when the document changed (the system's bundle must be rebuilt).
 */
export async function writeDatasourceData(
  tx: ServiceRepositories,
  id: string,
  systemId: string | null,
  prepared: DatasourceText,
): Promise<boolean> {
  const { text, etag } = prepared
  // Only the ETag is compared: the stored value is not read back.
  const existing = await tx.dataDocuments.getMeta(id)
  if (existing?.etag === etag) return false
  const actor = { by: `${DATASOURCE_ACTOR.by}:${id}`, through: DATASOURCE_ACTOR.through }
  await tx.dataDocuments.upsert({
    path: id,
    system_id: systemId,
    value: text,
    etag,
    ...upsertedBy(actor, existing),
  })
  if (systemId !== null) await tx.systems.bumpContentVersion(systemId)
  return true
}
