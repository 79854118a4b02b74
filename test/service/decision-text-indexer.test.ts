import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import Database from 'better-sqlite3'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { createLogger } from '../../core/log.js'
import { DecisionTextIndexer } from '../../service/decision-text-indexer.js'
import { type NewDecision, ServiceStore } from '../../store/service/index.js'

describe('DecisionTextIndexer', () => {
  let dir: string
  let store: ServiceStore
  beforeEach(async () => {
    dir = mkdtempSync(join(tmpdir(), 'regent-indexer-'))
    store = await ServiceStore.open({ url: join(dir, 'service.db') })
  })
  afterEach(async () => {
    await store.close()
    rmSync(dir, { recursive: true, force: true })
  })

  it('indexes stored decisions in batches until the index is current, then waits for more', async () => {
    const rows: NewDecision[] = Array.from({ length: 1200 }, (_, i) => ({
      decisionId: `d${i}`,
      systemId: 's',
      path: null,
      resultKind: 'UNKNOWN',
      tsUs: i,
      receivedUs: i,
      raw: `{"decision_id":"d${i}"}`,
    }))
    await store.decisions.append(rows.slice(0, 1000))
    const progress = new Database(join(dir, 'service.db'), { readonly: true })
    const indexedThrough = () =>
      (progress.prepare('select indexed_through as n from decisions_fts_progress').get() as { n: number }).n
    // Bounded wait for the background batches to reach `seq`.
    const reach = async (seq: number) => {
      for (let n = 0; n < 250 && indexedThrough() < seq; n++) await new Promise((r) => setTimeout(r, 20))
      return indexedThrough()
    }
    const indexer = new DecisionTextIndexer({
      store,
      logger: createLogger({ level: 'silent' }),
      batchRows: 100,
      idleMs: 10,
    })
    indexer.start()
    try {
      expect(await reach(1000)).toBe(1000)
      await store.decisions.append(rows.slice(1000))
      expect(await reach(1200)).toBe(1200)
    } finally {
      await indexer.stop()
      progress.close()
    }
    expect(await store.decisions.indexText(100)).toBe(0)
  })
})
