/**
 * Large `http` documents (more than 1 MiB) on a real service: decoded and filtered on one worker
 * (decode-off-thread.ts's decodeToText), stored in chunks (store-data.ts's storeRunData,
 * data-chunks.ts). What the worker path stores is exactly what the main-thread path stores (large
 * numbers keep every digit); a failed large run keeps the last good data; a restart finds exactly
 * what was acknowledged and no chunk that nothing refers to. SQLite and (when configured) PostgreSQL.
 */
import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { readBundle } from '../../../core/bundle/index.js'
import { parseConfig } from '../../../core/config.js'
import { createLogger } from '../../../core/log.js'
import { decodeContent } from '../../../service/datasources/decode.js'
import { runFilter } from '../../../service/datasources/filter.js'
import { type RunningService, serviceSectionSchema, startService } from '../../../service/index.js'
import { parseJsonDocument, stringifyJsonDocument } from '../../../service/json-document.js'
import { ServiceStore } from '../../../store/service/index.js'
import { BACKENDS, type TestDatabase } from '../../store/backends.js'

const ADMIN = 'large-docs-admin-token-0123456789'
const SERVICE_YAML = 'datasources: {scheduler_interval: 1h, timeout: 30s, max_bytes_per_run: 20000000}'

/**
 * A JSON text of about `bytes` bytes whose numbers a double cannot hold, strings with characters
 * outside the BMP (surrogate pairs that chunk boundaries must not split) and `version` to tell
 * two documents apart.
 */
function documentText(bytes: number, version: number): string {
  const items: string[] = []
  let size = 0
  for (let i = 0; size < bytes; i++) {
    const item = `{"id":"user-${i}","v":${version},"active":${i % 3 !== 0},"serial":1234567890123456789${i % 10},"ratio":0.1000000000000000055511151231257827,"note":"😀 é ${'x'.repeat(i % 40)}"}`
    items.push(item)
    size += item.length + 1
  }
  return `{"version":${version},"big":123456789012345678901234567890,"items":[${items.join(',')}]}`
}

const FILTER =
  'package f\n\nimport rego.v1\n\nkept := {"version": input.version, "big": input.big, "serials": [x.serial | some x in input.items; x.active]}\n'

/** What the main-thread path stores for `text`: decoded, optionally filtered, written back. */
async function mainThreadText(text: string, filtered: boolean): Promise<string> {
  const content = decodeContent(Buffer.from(text), 'json', 'test', 100_000)
  if (!filtered) return stringifyJsonDocument(content)
  return (await runFilter(FILTER, 'data.f.kept', content, { timeoutMs: 0, instructionLimit: 0 })).text
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`large http documents on ${backend.name}`, () => {
    let database: TestDatabase
    let dataDir: string
    let service: RunningService
    let server: Server
    let sourceUrl: string
    const source = { body: documentText(50_000, 0), status: 200 }

    const start = () =>
      startService({
        config: (() => {
          const config = parseConfig(SERVICE_YAML, serviceSectionSchema)
          if (backend.name === 'postgres') config.database.url = database.url
          return config
        })(),
        logger: createLogger({ level: 'silent' }),
        addr: '127.0.0.1:0',
        dataDir,
        adminToken: ADMIN,
        databaseSchema: database.schema,
        graceMs: 1000,
      })
    const call = async (
      method: string,
      path: string,
      body?: unknown,
      headers: Record<string, string> = {},
    ) => {
      const res = await fetch(`${service.url}${path}`, {
        method,
        headers: { Authorization: `Bearer ${ADMIN}`, 'Content-Type': 'application/json', ...headers },
        ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
      })
      return { status: res.status, text: await res.text() }
    }
    const put = async (name: string, extra: Record<string, unknown> = {}) => {
      const res = await call('PUT', `/v1/datasources/systems/app/${name}`, {
        category: 'http',
        url: sourceUrl,
        polling_interval: '1h',
        ...extra,
      })
      expect(res.status, res.text).toBe(200)
    }
    const run = async (name: string) => {
      const res = await call('POST', `/v1/datasources/systems/app/${name}`)
      expect(res.status, res.text).toBe(200)
      return (JSON.parse(res.text) as { result: { code: string; message: string; items: number } }).result
    }
    /** The stored document's text as /v1/data answers it (`{"request_id": …, "result": <text>}`). */
    const storedText = async (name: string) => {
      const res = await call('GET', `/v1/data/systems/app/${name}`)
      expect(res.status, res.text.slice(0, 200)).toBe(200)
      const at = res.text.indexOf(',"result":')
      expect(at).toBeGreaterThan(0)
      return res.text.slice(at + ',"result":'.length, -1)
    }
    /** data.json of the system's bundle, as text (its numbers as sent). */
    const bundleDataText = async () => {
      const res = await fetch(`${service.url}/v1/bundles/systems/app`, {
        headers: { Authorization: `Bearer ${ADMIN}` },
      })
      const bundle = await readBundle(new Uint8Array(await res.arrayBuffer()))
      const file = bundle.dataFiles.find((f) => f.path === 'data.json')
      return new TextDecoder().decode(file?.raw)
    }

    beforeAll(async () => {
      server = createServer((_req, res) => {
        res.writeHead(source.status, { 'Content-Type': 'application/json' })
        res.end(source.body)
      })
      await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
      sourceUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}/doc.json`
      database = await backend.create()
      dataDir = mkdtempSync(join(tmpdir(), 'regent-large-docs-'))
      service = await start()
      const res = await call(
        'PUT',
        '/v1/systems/app',
        { name: 'app', type: 'custom' },
        { 'If-None-Match': '*' },
      )
      expect(res.status, res.text).toBe(200)
    }, 60_000)
    afterAll(async () => {
      await service?.stop()
      await database?.cleanup()
      if (dataDir) rmSync(dataDir, { recursive: true, force: true })
      await new Promise((resolve) => server?.close(resolve))
    })

    it('stores what the main-thread path stores, small and over 1 MiB, filtered or not', async () => {
      for (const bytes of [50_000, 1_500_000]) {
        source.body = documentText(bytes, 1)
        for (const filtered of [false, true]) {
          const name = `eq-${bytes}-${filtered ? 'filtered' : 'raw'}`
          await put(name, filtered ? { policy_filter: FILTER, policy_query: 'data.f.kept' } : {})
          const status = await run(name)
          expect(status, status.message).toMatchObject({ code: 'ok' })
          const expected = await mainThreadText(source.body, filtered)
          const stored = await storedText(name)
          expect(stored.length).toBe(expected.length)
          expect(stored === expected).toBe(true)
          // Every digit kept, in the store and in the bundle.
          expect(stored).toContain('"big":123456789012345678901234567890')
          expect(stored).toContain('12345678901234567891')
          if (!filtered) expect(stored).toContain('0.1000000000000000055511151231257827')
        }
      }
      const data = await bundleDataText()
      expect(data).toContain('"eq-1500000-raw":{"version":1,"big":123456789012345678901234567890,')
      expect(parseJsonDocument(data)).toBeTruthy()
    }, 120_000)

    it('keeps the last good data when a large run fails, in the store and in the bundle', async () => {
      source.body = documentText(1_500_000, 2)
      await put('atomic')
      expect(await run('atomic')).toMatchObject({ code: 'ok' })
      const good = await storedText('atomic')
      const goodBundle = await bundleDataText()
      // A decode error past the first MiB, then a filter error on a large document.
      source.body = `${documentText(1_500_000, 3).slice(0, -2)},]}`
      const broken = await run('atomic')
      expect(broken.code).toBe('error')
      expect(broken.message).toMatch(/^decode error: JSON of http:\/\/127\.0\.0\.1:\d+\/doc\.json/)
      source.body = documentText(1_500_000, 4)
      await put('atomic', { policy_filter: 'package f\n\nx := 1 / 0\n', policy_query: 'data.f.x' })
      const failed = await run('atomic')
      expect(failed.code).toBe('error')
      expect(failed.message).toMatch(/^filter error: /)
      expect(await storedText('atomic')).toBe(good)
      expect(await bundleDataText()).toBe(goodBundle)
    }, 120_000)

    it('finds after a restart exactly what was acknowledged, and no orphaned chunk', async () => {
      source.body = documentText(1_200_000, 5)
      await put('durable')
      expect(await run('durable')).toMatchObject({ code: 'ok' })
      // A second, different version replaces the first (whose chunks are released).
      source.body = documentText(1_300_000, 6)
      expect(await run('durable')).toMatchObject({ code: 'ok' })
      const acknowledged = await storedText('durable')
      expect(acknowledged).toBe(await mainThreadText(source.body, false))
      const bundleBefore = await bundleDataText()
      await service.stop()
      // Between the two services: nothing in the chunk table that no document refers to.
      const store = await ServiceStore.open({
        url: backend.name === 'postgres' ? database.url : join(dataDir, 'service.db'),
        schema: database.schema,
      })
      try {
        expect(await store.dataDocuments.chunks.sweep(0)).toBe(0)
      } finally {
        await store.close()
      }
      service = await start()
      expect(await storedText('durable')).toBe(acknowledged)
      expect(await bundleDataText()).toBe(bundleBefore)
    }, 120_000)
  })
}
