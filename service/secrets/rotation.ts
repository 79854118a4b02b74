/**
 * Key rotation: bring every stored value under one (new) key without losing any.
 *
 * With a key file (configured or generated):
 * 1. If the file holds one key, a new key is generated and written first in the file, the old
 *    one kept after it: from here on new values are sealed with the new key (a running service
 *    re-reads the file) and old ones still open. If it already holds several (an earlier
 *    rotation was interrupted, or the operator put a new key first), that rotation is finished.
 * 2. Every value sealed with another key is opened and re-sealed with the active key, one row
 *    at a time, each a compare-and-set on the old ciphertext so a value written meanwhile wins.
 * 3. After a short grace (a seal that read the old file just before step 1 lands), the rows are
 *    counted again; only when none is left on an old key are the old keys dropped from the file.
 *    A value that cannot be opened stops this step: the old keys stay, the command fails naming it.
 *
 * With REGENT_SECRETS_KEY, regent cannot change the keys: the operator puts the new key first
 * (`new,old`), restarts, and runs the command, which does step 2 and says when the old key may go.
 */
import type { ServiceRepositories } from '../../store/service/index.js'
import { openSecret, SecretUnreadableError, sealSecret } from './cipher.js'
import type { SecretKeySource } from './key-source.js'
import { generateSecretKey } from './keyring.js'

/** Rows re-sealed per read. */
const BATCH = 100
/** Upper bound of passes over the table (each pass reads every row still on an old key). */
const MAX_PASSES = 5

/** What a rotation did. */
export interface RotationReport {
  /** The key values are sealed with now. */
  activeKeyId: string
  /** True when this run generated the active key. */
  generated: boolean
  /** Values re-sealed with the active key. */
  resealed: number
  /** Secrets whose value could not be opened (they keep their old key). */
  unreadable: Array<{ id: string; reason: string }>
  /** Keys removed from the key file (empty with REGENT_SECRETS_KEY, or when some value is unreadable). */
  droppedKeyIds: string[]
  /** Keys the operator may now remove from REGENT_SECRETS_KEY. */
  removableKeyIds: string[]
}

export interface RotationOptions {
  store: ServiceRepositories
  keys: SecretKeySource
  /** Milliseconds to wait before the final count (default 2000). */
  graceMs?: number
}

/** Rotates the secrets key as described above. */
export async function rotateSecretsKey(options: RotationOptions): Promise<RotationReport> {
  const { store, keys } = options
  let generated = false
  if (keys.file !== undefined && keys.current().keys.length === 1) {
    keys.replace(keys.current().withActive(generateSecretKey()))
    generated = true
  }
  const activeKeyId = keys.current().active.id
  const unreadable = new Map<string, string>()
  let resealed = 0
  for (let pass = 0; pass < MAX_PASSES; pass++) {
    const moved = await resealPass(store, keys, unreadable)
    resealed += moved
    if (pass === 0) await sleep(options.graceMs ?? 2000)
    else if (moved === 0) break
  }
  const remaining = await store.secrets.keyIds()
  const leftOnOldKeys = remaining.filter((id) => id !== activeKeyId)
  const oldKeyIds = keys.current().ids.filter((id) => id !== activeKeyId)
  const report: RotationReport = {
    activeKeyId,
    generated,
    resealed,
    unreadable: [...unreadable].map(([id, reason]) => ({ id, reason })),
    droppedKeyIds: [],
    removableKeyIds: [],
  }
  if (leftOnOldKeys.length > 0 || unreadable.size > 0) return report
  if (keys.file !== undefined) {
    if (oldKeyIds.length > 0) keys.replace(keys.current().activeOnly())
    report.droppedKeyIds = oldKeyIds
  } else {
    report.removableKeyIds = oldKeyIds
  }
  return report
}

/** One pass over the rows on an old key; resolves to how many it re-sealed. */
async function resealPass(
  store: ServiceRepositories,
  keys: SecretKeySource,
  unreadable: Map<string, string>,
): Promise<number> {
  let resealed = 0
  let after: string | undefined
  for (;;) {
    const keyring = keys.current()
    const rows = await store.secrets.listSealedWithOtherKey(keyring.active.id, BATCH, after)
    if (rows.length === 0) return resealed
    for (const row of rows) {
      after = row.id
      let value: string
      try {
        value = openSecret(keyring, row.id, row)
      } catch (err) {
        if (!(err instanceof SecretUnreadableError)) throw err
        unreadable.set(row.id, err.reason)
        continue
      }
      unreadable.delete(row.id)
      if (await store.secrets.reseal(row.id, row.ciphertext, sealSecret(keyring, row.id, value))) resealed++
    }
  }
}

function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms))
}
