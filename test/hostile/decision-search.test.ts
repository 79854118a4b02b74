/**
 * Hostile: a decision search for a term that matches almost nothing, over a log larger than one
 * scan chunk (issue 17, item 8). The search answers within its budget with a partial page and a
 * cursor instead of holding the service until it has scanned everything, and following the
 * cursors finds exactly the matches.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type NewDecision, SCAN_CHUNK_ROWS } from '../../store/service/index.js'
import { startTestService, type TestService } from '../service/harness.js'
import { BACKENDS } from '../store/backends.js'

const ROWS = SCAN_CHUNK_ROWS * 3

interface Page {
  result: { items: Array<{ decision_id: string }>; cursor?: string; partial?: boolean }
}

describe('a slow decision search on sqlite', () => {
  let t: TestService
  beforeAll(async () => {
    // 1 ms: every chunk of the scan outlasts it, so each page stops after one chunk.
    t = await startTestService(BACKENDS[0]!, 'limits: { decision_search_budget_ms: 1 }')
    const rows: NewDecision[] = Array.from({ length: ROWS }, (_, i) => ({
      decisionId: `d${i}`,
      systemId: 's',
      path: 'app/allow',
      resultKind: 'ALLOWED',
      tsUs: 1_700_000_000_000_000 + i * 1000,
      receivedUs: 1_700_000_000_000_000,
      raw: `{"decision_id":"d${i}","input":{"user":"u${i % 50}"}${i === 10 || i === 11 ? ',"tag":"zq-rare"' : ''}}`,
    }))
    for (let i = 0; i < rows.length; i += 2000)
      await t.service.store.decisions.append(rows.slice(i, i + 2000))
  }, 60_000)
  afterAll(async () => t?.close())

  it('answers partial pages with a cursor, and the cursors lead to every match', async () => {
    const found: string[] = []
    let partialPages = 0
    let cursor: string | undefined
    for (let n = 0; n < 20; n++) {
      const query = `/v1/decisions?limit=10&search=zq${cursor ? `&cursor=${cursor}` : ''}`
      const page = await t.json<Page>('GET', query)
      expect(page.status).toBe(200)
      found.push(...page.body.result.items.map((d) => d.decision_id))
      if (page.body.result.partial) {
        partialPages++
        expect(page.body.result.cursor).toBeDefined()
      }
      cursor = page.body.result.cursor
      if (!cursor) break
    }
    expect(found).toEqual(['d11', 'd10'])
    expect(partialPages).toBeGreaterThanOrEqual(2)
  })

  it('a full page is not partial, and a rare long term comes from the index in one page', async () => {
    const full = await t.json<Page>('GET', '/v1/decisions?limit=5&search=u1')
    expect(full.body.result.items).toHaveLength(5)
    expect(full.body.result.partial).toBeUndefined()
    expect(full.body.result.cursor).toBeDefined()
    const rare = await t.json<Page>('GET', '/v1/decisions?limit=5&search=zq-rare')
    expect(rare.body.result.items.map((d) => d.decision_id)).toEqual(['d11', 'd10'])
    expect(rare.body.result.partial).toBeUndefined()
  })
})
