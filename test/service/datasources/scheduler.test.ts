/**
 * The scheduler against a real store (SQLite, and PostgreSQL when configured): two schedulers
 * on one database (two replicas) never run one datasource at once, a run interrupted by a stop
 * is picked up by the next scheduler to start, a failing source backs off, and a run that ends
 * frees its slot for the next due datasource at once rather than at the next tick.
 */

import { mkdtempSync, rmSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest'
import { createLogger } from '../../../core/log.js'
import { BundleBuilder } from '../../../service/bundle-builder.js'
import { BundleWatch } from '../../../service/bundle-watch.js'
import { DatasourceScheduler } from '../../../service/datasources/scheduler.js'
import { parseStatus } from '../../../service/datasources/status.js'
import { createServiceMetrics } from '../../../service/metrics.js'
import { defaultModuleValidator } from '../../../service/policy-validation.js'
import { openSecretKeySource } from '../../../service/secrets/key-source.js'
import { SecretVault } from '../../../service/secrets/vault.js'
import { createdBy, type ServiceStore } from '../../../store/service/index.js'
import { BACKENDS, openTestStore } from '../../store/backends.js'

/** A source whose answers wait until the test releases them. */
function startHeldSource() {
  const held: Array<() => void> = []
  let requests = 0
  const server: Server = createServer((_req, res) => {
    requests++
    held.push(() => res.end(JSON.stringify({ n: requests })))
  })
  return new Promise<{ url: string; held: typeof held; requests(): number; close(): Promise<void> }>(
    (resolve) => {
      server.listen(0, '127.0.0.1', () => {
        resolve({
          url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/doc`,
          held,
          requests: () => requests,
          close: () =>
            new Promise((done) => {
              server.closeAllConnections()
              server.close(() => done())
            }),
        })
      })
    },
  )
}

for (const backend of BACKENDS) {
  describe.skipIf(!backend.available)(`datasource scheduler on ${backend.name}`, () => {
    let opened: Awaited<ReturnType<typeof openTestStore>>
    let store: ServiceStore
    let source: Awaited<ReturnType<typeof startHeldSource>>
    let keyDir: string
    const logger = createLogger({ level: 'silent' })

    const scheduler = (tickMs = 50) => {
      const watch = new BundleWatch({ readRevision: async () => undefined, recheckMs: null })
      const builder = new BundleBuilder({
        store,
        watch,
        metrics: createServiceMetrics(),
        logger,
        validateModule: defaultModuleValidator,
      })
      return new DatasourceScheduler({
        store,
        builder,
        secrets: new SecretVault(openSecretKeySource({ dataDir: keyDir })),
        logger,
        limits: {
          maxBytes: 1 << 20,
          maxYamlNodes: 1000,
          defaultTimeoutMs: 30_000,
          dataDir: keyDir,
          knownHosts: [],
        },
        tickMs,
        maxConcurrentRuns: 2,
      })
    }
    const addDatasource = async (id: string, url: string) => {
      const now = new Date().toISOString()
      await store.datasources.insert({
        id,
        system_id: null,
        category: 'http',
        config: JSON.stringify({
          category: 'http',
          url,
          method: 'GET',
          enabled: true,
          polling_interval: '1h',
        }),
        scheduled: 1,
        executed: now,
        status: '{}',
        failures: 0,
        next_run_at: now,
        lease_owner: null,
        lease_until: null,
        ...createdBy({ by: 'test', through: 'test' }),
      })
    }

    beforeAll(async () => {
      opened = await openTestStore(backend)
      store = opened.store
      source = await startHeldSource()
      keyDir = mkdtempSync(join(tmpdir(), 'regent-keys-'))
    })
    afterAll(async () => {
      await source?.close()
      await opened?.close()
      rmSync(keyDir, { recursive: true, force: true })
    })

    it('lets one replica run a datasource at a time (the lease)', async () => {
      await addDatasource('feeds/leased', source.url)
      const a = scheduler()
      const b = scheduler()
      const first = a.runNow('feeds/leased')
      await vi.waitFor(() => expect(source.held.length).toBe(1), { timeout: 10_000, interval: 20 })
      await expect(b.runNow('feeds/leased')).rejects.toMatchObject({ status: 409 })
      expect(parseStatus((await store.datasources.get('feeds/leased'))!.status).code).toBe('running')
      source.held.shift()!()
      expect(await first).toMatchObject({ code: 'ok', items: 1 })
      // Released: the other replica may run it now.
      const second = b.runNow('feeds/leased')
      await vi.waitFor(() => expect(source.held.length).toBe(1), { timeout: 10_000, interval: 20 })
      source.held.shift()!()
      expect(await second).toMatchObject({ code: 'ok' })
      expect(JSON.parse((await store.dataDocuments.get('feeds/leased'))!.value)).toEqual({ n: 2 })
    })

    it('records a run interrupted by a stop, and the next scheduler to start runs it', async () => {
      await addDatasource('feeds/restart', source.url)
      const before = source.requests()
      const a = scheduler()
      const run = a.runNow('feeds/restart')
      await vi.waitFor(() => expect(source.held.length).toBe(1), { timeout: 10_000, interval: 20 })
      await a.stop()
      expect(await run).toMatchObject({
        code: 'error',
        message: 'interrupted: the service stopped during the run',
      })
      source.held.shift()!() // the abandoned answer
      const row = (await store.datasources.get('feeds/restart'))!
      expect(row).toMatchObject({ lease_owner: null, failures: 0 })
      expect(Date.parse(row.next_run_at)).toBeLessThanOrEqual(Date.now())
      const c = scheduler()
      await c.start()
      try {
        await vi.waitFor(() => expect(source.held.length).toBe(1), { timeout: 10_000, interval: 20 })
        source.held.shift()!()
        await vi.waitFor(
          async () =>
            expect(parseStatus((await store.datasources.get('feeds/restart'))!.status).code).toBe('ok'),
          { timeout: 10_000, interval: 50 },
        )
        expect(source.requests()).toBe(before + 2)
      } finally {
        await c.stop()
      }
    })

    it('starts the next due datasource when a run ends, not at the next tick', async () => {
      // A source that answers at once: each run is short, so the tick would be the bottleneck.
      const fast = createServer((req, res) => res.end(JSON.stringify({ path: req.url })))
      await new Promise<void>((resolve) => fast.listen(0, '127.0.0.1', resolve))
      const url = `http://127.0.0.1:${(fast.address() as AddressInfo).port}`
      const ids = Array.from({ length: 12 }, (_, i) => `feeds/burst-${i}`)
      for (const id of ids) await addDatasource(id, `${url}/${id}`)
      // One tick a minute, two runs at once: before the fix the first tick ran two and the rest
      // waited for the next tick.
      const a = scheduler(60_000)
      await a.start()
      try {
        await vi.waitFor(
          async () => {
            for (const id of ids)
              expect(parseStatus((await store.datasources.get(id))!.status).code, id).toBe('ok')
          },
          { timeout: 15_000, interval: 100 },
        )
      } finally {
        await a.stop()
        await new Promise((resolve) => fast.close(resolve))
      }
    })

    it('backs off after failures and starts afresh after a success', async () => {
      await addDatasource('feeds/down', 'http://127.0.0.1:9/unreachable')
      const a = scheduler()
      const failed = await a.runNow('feeds/down')
      expect(failed.code).toBe('error')
      expect(failed.message).toMatch(/^connection error: http:\/\/127\.0\.0\.1:9\/unreachable: ECONNREFUSED/)
      await a.runNow('feeds/down')
      const row = (await store.datasources.get('feeds/down'))!
      expect(row.failures).toBe(2)
      // 1h interval: two failures wait max(1h, 5m) = 1h (backoff never shortens an interval).
      expect(
        Date.parse(row.next_run_at) - Date.parse(parseStatus(row.status).last_attempt!),
      ).toBeGreaterThanOrEqual(3_600_000)
    })
  })
}
