/**
 * Where a datasource's data goes: the data document at the datasource's id, written in the same
 * transaction as its status, so a reader sees either the old data with the old status or the new
 * with the new. A document under `systems/<sys>/` bumps that system's content version; the
 * caller rebuilds its bundle after the commit. Unchanged data writes nothing (no new revision).
 */
import type { ServiceRepositories } from '../../store/service/index.js'
import { upsertedBy } from '../../store/service/index.js'
import { documentEtag, stringifyJsonDocument } from '../json-document.js'

/** Who the audit columns of datasource-written documents name. */
export const DATASOURCE_ACTOR = { by: 'datasource', through: 'datasource' }

/**
 * Stores `content` as the data of datasource `id` (inside the caller's transaction); resolves to
 * true when the document changed (the system's bundle must be rebuilt).
 */
export async function writeDatasourceData(
  tx: ServiceRepositories,
  id: string,
  systemId: string | null,
  content: unknown,
): Promise<boolean> {
  const text = stringifyJsonDocument(content)
  const etag = documentEtag(text)
  const existing = await tx.dataDocuments.get(id)
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
