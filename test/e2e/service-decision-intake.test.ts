/**
 * The service's decision-log intake against hostile bodies, through a real `regent service`:
 * a batch past the event cap is refused as soon as the cap is passed (an 8 MiB body of `{},`
 * is not parsed whole, which held the event loop for seconds), and an invalid event is refused
 * by the same rules the relay applies, naming the event and field, with nothing stored.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { request } from 'undici'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type RegentProcess, startRegent } from '../relay/support/processes.js'

const ADMIN = 'e2e-intake-admin-token-0123456789'
const headers = { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json' }

describe('regent service decision-log intake', () => {
  const dir = mkdtempSync(join(tmpdir(), 'regent-e2e-service-intake-'))
  let service: RegentProcess

  beforeAll(async () => {
    service = await startRegent(['service', '--addr', '127.0.0.1:0', '--data-dir', dir], {
      REGENT_ADMIN_TOKEN: ADMIN,
    })
  }, 30_000)
  afterAll(async () => {
    await service?.stop()
    rmSync(dir, { recursive: true, force: true })
  })

  const upload = async (body: string | Buffer, extra: Record<string, string> = {}) => {
    const res = await request(`${service.url}/v1/logs`, {
      method: 'POST',
      body,
      headers: { ...headers, ...extra },
    })
    return { status: res.statusCode, body: (await res.body.json()) as { code?: string; message?: string } }
  }
  const storedCount = async () => {
    const text = await (await request(`${service.url}/metrics`)).body.text()
    return Number(/regent_service_decisions_received_total\{outcome="stored"\} (\d+)/.exec(text)?.[1] ?? 0)
  }

  it('refuses a batch past the event cap with 413 without reading the rest of it', async () => {
    // Default cap 100,000: the event after it is followed by text that is not JSON. A 413 (not a
    // 400 for the text) shows intake stopped at the cap.
    const past = `[${'{},'.repeat(100_001)} and this is never read`
    const refused = await upload(past)
    expect(refused.status).toBe(413)
    expect(refused.body.message).toBe(
      'a decision batch may hold at most 100000 events (service.limits.max_decisions_per_batch)',
    )
    // The 8 MiB body of the report, plain and gzip.
    const eightMiB = `[${'{},'.repeat((8 * 1024 * 1024 - 16) / 3)}{}]`
    expect((await upload(eightMiB)).status).toBe(413)
    expect((await upload(gzipSync(eightMiB), { 'Content-Encoding': 'gzip' })).status).toBe(413)
    expect(await storedCount()).toBe(0)
  })

  it('refuses an invalid event by the shared rules, naming event and field, storing nothing of the batch', async () => {
    const good = (i: number) => `{"decision_id":"ok-${i}","timestamp":"2024-01-01T00:00:00Z","result":true}`
    const cases: Array<[string, RegExp]> = [
      [
        '{"decision_id":"dup","input":{"user":"a","user":"a"}}',
        /event 2, field input\.user: duplicate key "user"/,
      ],
      [
        '{"decision_id":12}',
        /event 2, field decision_id: decision_id must be a non-empty string of at most 256 characters \(got a number\)/,
      ],
      [`{"decision_id":"${'i'.repeat(300)}"}`, /event 2, field decision_id: .*\(got 300 characters\)/],
    ]
    for (const [bad, reason] of cases) {
      const refused = await upload(`[${good(0)},${good(1)},${bad},${good(3)}]`)
      expect(refused.status).toBe(400)
      expect(refused.body.message).toMatch(reason)
    }
    expect(await storedCount()).toBe(0)
    expect((await upload(`[${good(0)},${good(1)}]`)).status).toBe(200)
    expect(await storedCount()).toBe(2)
  })
})
