import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { NewDecision, ServiceStore } from '../../../store/service/index.js'
import { BACKENDS, openTestStore } from '../backends.js'

const BIG_REQ_ID = '18446744073709551615'

function decision(i: number, extra: Partial<NewDecision> = {}): NewDecision {
  const allowed = i % 2 === 0
  const raw = `{"decision_id":"d${i}","path":"app/allow","input":{"user":"u${i % 5}","n":${i}},"result":${allowed},"req_id":${BIG_REQ_ID},"labels":{"id":"agent-${i % 3}"}}`
  return {
    decisionId: `d${i}`,
    systemId: i % 4 === 0 ? 'sys-b' : 'sys-a',
    path: 'app/allow',
    resultKind: allowed ? 'ALLOWED' : 'DENIED',
    tsUs: 1_700_000_000_000_000 + Math.floor(i / 2) * 1000,
    receivedUs: 1_700_000_000_000_000,
    raw,
    ...extra,
  }
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`decision appends on ${backend.name}`, () => {
    it('stores concurrent uploads, each told how many of its own rows were new', async () => {
      const { store, close } = await openTestStore(backend)
      try {
        expect(await store.decisions.append([decision(1), decision(2)])).toBe(2)
        const uploads = [
          Array.from({ length: 700 }, (_, i) => decision(10_000 + i)),
          [decision(20_000), decision(20_000)],
          [decision(1), decision(20_001)],
          [decision(2)],
        ]
        // Started together (on SQLite they share one commit); the counts are per upload.
        const counts = await Promise.all(uploads.map((rows) => store.decisions.append(rows)))
        expect(counts).toEqual([700, 1, 1, 0])
        expect(await store.decisions.count()).toBe(704)
        expect((await store.decisions.get('d20001'))?.raw).toBe(decision(20_001).raw)
      } finally {
        await close()
      }
    })

    it('stores nothing of an upload whose insert fails, and goes on with the next ones', async () => {
      const { store, close } = await openTestStore(backend)
      try {
        // 600 rows: the failing row is in the second statement, after 500 went in.
        const failing = Array.from({ length: 600 }, (_, i) => decision(40_000 + i))
        failing[550] = decision(40_550, { decisionId: null as unknown as string })
        await expect(store.decisions.append(failing)).rejects.toThrow()
        expect(await store.decisions.count()).toBe(0)
        expect(await store.decisions.append([decision(41_000)])).toBe(1)
        expect(await store.decisions.count()).toBe(1)
      } finally {
        await close()
      }
    })

    it('keeps a batch in its order, its nulls, and text an array literal would mangle', async () => {
      const { store, close } = await openTestStore(backend)
      try {
        // Same timestamp, so only the sequence orders them; texts with braces, quotes, commas,
        // backslashes, the word NULL and non-ASCII (PostgreSQL binds each column as one array).
        const texts = ['{"a":"NULL"}', '{"b":"x\\"y,z}"}', '{"c":"ünï 🚀","d":"\\\\"}', 'NULL']
        const batch = texts.map((raw, i) =>
          decision(30_000 + i, {
            systemId: i === 1 ? null : 'sys-a',
            path: i === 2 ? null : 'p',
            tsUs: 42,
            raw,
          }),
        )
        expect(await store.decisions.append(batch.slice().reverse())).toBe(4)
        const found = await store.decisions.search({ order: 'ASC', limit: 10 })
        expect(found.map((d) => d.decisionId)).toEqual(['d30003', 'd30002', 'd30001', 'd30000'])
        expect(found.map((d) => d.raw)).toEqual(texts.slice().reverse())
        expect(found.map((d) => [d.systemId, d.path])).toEqual([
          ['sys-a', 'p'],
          ['sys-a', null],
          [null, 'p'],
          ['sys-a', 'p'],
        ])
      } finally {
        await close()
      }
    })
  })

  describe.skipIf(!backend.available)(`decision store on ${backend.name}`, () => {
    let store: ServiceStore
    let close: () => Promise<void>
    beforeAll(async () => {
      ;({ store, close } = await openTestStore(backend))
      const batch = Array.from({ length: 1200 }, (_, i) => decision(i))
      expect(await store.decisions.append(batch)).toBe(1200)
    })
    afterAll(async () => close?.())

    it('skips decision ids already stored or repeated within a batch', async () => {
      const again = [decision(3), decision(5), decision(5), decision(5000), decision(5000)]
      expect(await store.decisions.append(again)).toBe(1)
      expect(await store.decisions.count()).toBe(1201)
    })

    it('keeps the raw text, so numbers beyond 2^53 survive', async () => {
      const got = await store.decisions.get('d7')
      expect(got?.raw).toContain(`"req_id":${BIG_REQ_ID}`)
      expect(got?.resultKind).toBe('DENIED')
    })

    it('pages through everything exactly once in both orders', async () => {
      for (const order of ['ASC', 'DESC'] as const) {
        const seen = new Set<string>()
        let after: { tsUs: number; seq: number } | undefined
        let previous: number | undefined
        for (;;) {
          const page = await store.decisions.search({ order, limit: 250, after })
          for (const d of page) {
            expect(seen.has(d.decisionId)).toBe(false)
            seen.add(d.decisionId)
            if (previous !== undefined)
              expect(order === 'ASC' ? d.tsUs >= previous : d.tsUs <= previous).toBe(true)
            previous = d.tsUs
          }
          if (page.length < 250) break
          const last = page.at(-1)!
          after = { tsUs: last.tsUs, seq: last.seq }
        }
        expect(seen.size).toBe(1201)
      }
    })

    it('filters by system, time, result kind and search terms', async () => {
      const all = { order: 'ASC' as const, limit: 5000 }
      expect((await store.decisions.search({ ...all, systemIds: ['sys-b'] })).length).toBe(301)
      expect((await store.decisions.search({ ...all, resultKinds: ['ALLOWED'] })).length).toBe(601)
      expect((await store.decisions.search({ ...all, resultKinds: ['ERROR'] })).length).toBe(0)
      const start = 1_700_000_000_000_000 + 10 * 1000
      const end = 1_700_000_000_000_000 + 19 * 1000
      expect((await store.decisions.search({ ...all, startUs: start, endUs: end })).length).toBe(20)
      const field = await store.decisions.search({
        ...all,
        terms: [{ kind: 'field', pointer: ['input', 'user'], value: 'u3' }],
      })
      expect(field.length).toBe(240)
      const numeric = await store.decisions.search({
        ...all,
        terms: [{ kind: 'field', pointer: ['input', 'n'], value: '42' }],
      })
      expect(numeric.map((d) => d.decisionId)).toEqual(['d42'])
      const bool = await store.decisions.search({
        ...all,
        terms: [{ kind: 'field', pointer: ['result'], value: 'true' }],
      })
      expect(bool.length).toBe(601)
      const text = await store.decisions.search({ ...all, terms: [{ kind: 'text', value: 'AGENT-2' }] })
      expect(text.length).toBe(401)
      const wildcard = await store.decisions.search({ ...all, terms: [{ kind: 'text', value: 'u_' }] })
      expect(wildcard.length).toBe(0)
      const negated = await store.decisions.search({
        ...all,
        terms: [{ kind: 'text', value: 'agent-2', negate: true }],
      })
      expect(negated.length).toBe(800)
      expect(
        (await store.decisions.search({ ...all, terms: [{ kind: 'decision_id', value: 'd9' }] })).length,
      ).toBe(1)
      expect(
        (await store.decisions.search({ ...all, terms: [{ kind: 'path', value: 'app/', prefix: true }] }))
          .length,
      ).toBe(1201)
      expect(
        (await store.decisions.search({ ...all, terms: [{ kind: 'path', value: 'app/', prefix: false }] }))
          .length,
      ).toBe(0)
    })

    it('finds a decision by its position', async () => {
      const [first] = await store.decisions.search({ order: 'DESC', limit: 1 })
      expect((await store.decisions.getAt({ tsUs: first!.tsUs, seq: first!.seq }))?.decisionId).toBe(
        first!.decisionId,
      )
    })

    it('dedupes by (system, decision id): another system cannot squat an id', async () => {
      const squat = decision(9001, { systemId: 'sys-evil', raw: '{"decision_id":"d9001","squat":true}' })
      const real = decision(9001, { systemId: 'sys-a' })
      expect(await store.decisions.append([squat])).toBe(1)
      expect(await store.decisions.append([real, real])).toBe(1)
      expect(await store.decisions.append([real])).toBe(0)
      const noSystem = decision(9002, { systemId: null })
      expect(await store.decisions.append([noSystem, noSystem])).toBe(1)
      expect(await store.decisions.append([noSystem])).toBe(0)
      expect((await store.decisions.get('d9001', ['sys-a']))?.raw).not.toContain('squat')
      expect((await store.decisions.get('d9001', ['sys-evil']))?.raw).toContain('squat')
      expect((await store.decisions.get('d9001'))?.systemId).toBe('sys-evil') // the first stored
      expect(await store.decisions.get('d9001', [])).toBeUndefined()
    })
  })
}
