/**
 * Hostile: another local user reading regent's state. The service database (it holds the
 * agent-token key), the relay's decision-log buffer (decisions with their inputs) and its
 * last-good bundles are created private to the process's user, SQLite's -wal and -shm files
 * included, whatever the umask; state that is already wider is reported once at start.
 */
import { chmodSync, mkdtempSync, rmSync, statSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { request } from 'undici'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { parseConfig } from '../../core/config.js'
import { sharedStatePaths } from '../../core/state-files.js'
import { decisionLogsExtension } from '../../relay/decision-logs/index.js'
import type { RunningRelay } from '../../relay/relay.js'
import { type RunningService, serviceSectionSchema, startService } from '../../service/index.js'
import { eventually, relayConfig, startTestRelay } from '../relay/helpers.js'
import { capturedLogger } from '../support/captured-logger.js'
import { type FaultUpstream, makeBundle, startFaultUpstream } from '../support/fault-upstream.js'
import { makeEvents } from '../support/logs-agent.js'

let dir: string
let service: RunningService | undefined
let relay: RunningRelay | undefined
let upstream: FaultUpstream | undefined
const { logger, lines } = capturedLogger('info')
const modeOf = (path: string) => (statSync(path).mode & 0o777).toString(8).padStart(4, '0')
const warningsFor = (path: string) =>
  lines.map((l) => JSON.parse(l) as Record<string, unknown>).filter((l) => l.level === 40 && l.path === path)

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-modes-'))
  lines.length = 0
  // What most shells run with: files 0644 and folders 0755 unless the code asks for less.
  process.umask(0o022)
})
afterEach(async () => {
  await service?.stop()
  await relay?.stop()
  await upstream?.stop()
  service = relay = upstream = undefined
  rmSync(dir, { recursive: true, force: true })
})

function serviceOn(dataDir: string) {
  return startService({
    config: parseConfig('{}', serviceSectionSchema),
    logger,
    addr: '127.0.0.1:0',
    dataDir,
    adminToken: 'file-modes-admin-token-0123456789',
    graceMs: 500,
  })
}

describe('file modes of state', () => {
  it('creates the service database, its -wal and -shm 0600 in a 0700 folder', async () => {
    const dataDir = join(dir, 'nested', 'service')
    service = await serviceOn(dataDir)
    // A write, so the WAL holds something.
    const res = await fetch(`${service.url}/v1/systems`, {
      method: 'POST',
      headers: {
        Authorization: 'Bearer file-modes-admin-token-0123456789',
        'Content-Type': 'application/json',
      },
      body: JSON.stringify({ name: 'modes', type: 'template.envoy:2.1' }),
    })
    expect(res.status).toBeLessThan(300)
    expect(modeOf(join(dir, 'nested'))).toBe('0700')
    expect(modeOf(dataDir)).toBe('0700')
    for (const file of ['service.db', 'service.db-wal', 'service.db-shm']) {
      expect([file, modeOf(join(dataDir, file))]).toEqual([file, '0600'])
    }
    expect(warningsFor(join(dataDir, 'service.db'))).toEqual([])
  })

  it('warns once, naming path and mode, when the service database is world-readable', async () => {
    const dataDir = join(dir, 'service')
    service = await serviceOn(dataDir)
    await service.stop()
    service = undefined
    chmodSync(join(dataDir, 'service.db'), 0o644)
    lines.length = 0
    service = await serviceOn(dataDir)
    const warnings = warningsFor(join(dataDir, 'service.db'))
    expect(warnings).toHaveLength(1)
    expect(warnings[0]).toMatchObject({ mode: '0644', expected: '0600' })
    expect(String(warnings[0]!.msg)).toMatch(/accessible to other users/)
  })

  it('keeps the relay storage folder, decision-log buffer and last-good bundles private', async () => {
    upstream = await startFaultUpstream()
    upstream.setBundle('/v1/bundles/authz', await makeBundle({ revision: 'r1' }), '"e1"')
    const storage = join(dir, 'relay', 'storage')
    relay = await startTestRelay(
      relayConfig(`services: { up: { url: "${upstream.url}/v1" } }\nbundles: { authz: {} }\n`),
      storage,
      { extensions: [decisionLogsExtension], logger },
    )
    await eventually(
      async () => (await request(`${relay!.url}/v1/bundles/authz`)).statusCode === 200,
      10_000,
      'the bundle on disk',
    )
    const post = await request(`${relay.url}/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(`[${makeEvents('modes', 0, 3).join(',')}]`),
    })
    expect(post.statusCode).toBe(204)
    await post.body.dump()
    expect(modeOf(join(dir, 'relay'))).toBe('0700')
    expect(sharedStatePaths(storage)).toEqual([])
    for (const file of ['decision-logs.db', 'decision-logs.db-wal', 'decision-logs.db-shm']) {
      expect([file, modeOf(join(storage, file))]).toEqual([file, '0600'])
    }
  })

  it('warns at relay start about a state file others can read', async () => {
    const storage = join(dir, 'relay')
    relay = await startTestRelay(relayConfig('{}'), storage, { extensions: [decisionLogsExtension], logger })
    // The buffer file is created by the first upload (an idle relay does not open it).
    const post = await request(`${relay.url}/v1/logs`, {
      method: 'POST',
      headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
      body: gzipSync(`[${makeEvents('modes', 0, 1).join(',')}]`),
    })
    expect(post.statusCode).toBe(204)
    await post.body.dump()
    await relay.stop()
    relay = undefined
    writeFileSync(join(storage, 'left-over.json'), '{}', { mode: 0o644 })
    chmodSync(join(storage, 'left-over.json'), 0o644)
    chmodSync(join(storage, 'decision-logs.db'), 0o640)
    lines.length = 0
    relay = await startTestRelay(relayConfig('{}'), storage, { extensions: [decisionLogsExtension], logger })
    expect(warningsFor(join(storage, 'left-over.json'))).toMatchObject([{ mode: '0644' }])
    expect(warningsFor(join(storage, 'decision-logs.db'))).toMatchObject([{ mode: '0640' }])
    expect(warningsFor(storage)).toEqual([])
  })
})
