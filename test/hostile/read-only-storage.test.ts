/**
 * Hostile: a relay whose storage folder cannot be written. It must never answer 204 for events
 * a restart will not find: without `relay.storage.fallback_dir` it refuses to start, naming the
 * folder and the reason; with it, events are kept at that fixed path and the next start
 * forwards them, whether the storage folder is still unwritable then or writable again.
 */
import { existsSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { request } from 'undici'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { decisionLogsExtension } from '../../relay/decision-logs/index.js'
import type { RunningRelay } from '../../relay/relay.js'
import { relayConfig, startTestRelay } from '../relay/helpers.js'
import { makeEvents } from '../support/logs-agent.js'
import { LogsUpstream } from '../support/logs-upstream.js'
import { makeReadOnlyFolder, type ReadOnlyFolder } from '../support/read-only-folder.js'
import { runRegent } from '../support/run-cli.js'

let dir: string
let relay: RunningRelay | undefined
let upstream: LogsUpstream | undefined
let readOnly: ReadOnlyFolder | undefined

beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'regent-ro-storage-'))
})
afterEach(async () => {
  await relay?.stop()
  await upstream?.close()
  readOnly?.release()
  relay = upstream = readOnly = undefined
  rmSync(dir, { recursive: true, force: true })
})

const start = (storage: string, yaml: string) =>
  startTestRelay(relayConfig(yaml), storage, { extensions: [decisionLogsExtension] })

function configFor(upstreamUrl: string, storage = ''): string {
  return `services: { up: { url: "${upstreamUrl}" } }
relay:
  ${storage}
  decision_logs: { retry: { min_delay_ms: 20, max_delay_ms: 200 }, upload: { drain_timeout_ms: 0 } }
`
}

async function postEvents(url: string, events: string[]): Promise<number> {
  const res = await request(`${url}/v1/logs`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-encoding': 'gzip' },
    body: gzipSync(`[${events.join(',')}]`),
  })
  await res.body.dump()
  return res.statusCode
}

/** A storage path that nobody (root included) can create: it lies below a regular file. */
function belowAFile(): { path: string; unblock(): void } {
  const file = join(dir, 'a-file')
  writeFileSync(file, 'not a folder')
  return { path: join(file, 'storage'), unblock: () => rmSync(file) }
}

describe('read-only storage folder', () => {
  it('refuses to start on a read-only folder, naming it and the reason', async (ctx) => {
    const made = makeReadOnlyFolder(join(dir, 'read-only'))
    if (typeof made === 'string') return ctx.skip(`no read-only folder here: ${made}`)
    readOnly = made
    const error = await start(made.path, configFor('http://127.0.0.1:9')).then(
      () => undefined,
      (err: Error) => err,
    )
    expect(error?.message, made.how).toMatch(
      new RegExp(`relay\\.storage\\.dir: ${made.path} is not writable \\((EROFS|EACCES)`),
    )
    expect(error?.message).toMatch(/relay\.storage\.fallback_dir/)
    // No folder named after the process: what it would hold is lost at the next start.
    expect(existsSync(join(tmpdir(), `regent-relay-${process.pid}`))).toBe(false)
  })

  it('refuses to start when the storage path lies below a regular file (as root too)', async () => {
    const blocked = belowAFile()
    await expect(start(blocked.path, configFor('http://127.0.0.1:9'))).rejects.toThrow(
      new RegExp(`relay\\.storage\\.dir: ${blocked.path} is not writable \\(ENOTDIR`),
    )
  })

  it('refuses a fallback_dir beside persistent: true, naming the key', async () => {
    expect(() =>
      relayConfig(
        configFor('http://127.0.0.1:9', `storage: { persistent: true, fallback_dir: "${dir}/fb" }`),
      ),
    ).toThrow(/relay\.storage\.fallback_dir: not allowed with persistent: true/)
  })

  it('with fallback_dir, acknowledges into the fixed fallback and the next start forwards from it', async () => {
    const made = makeReadOnlyFolder(join(dir, 'read-only'))
    const storage = typeof made === 'string' ? belowAFile().path : made.path
    if (typeof made !== 'string') readOnly = made
    const fallback = join(dir, 'fallback')
    upstream = await LogsUpstream.start()
    upstream.answerByDefault({ status: 503 })
    const yaml = configFor(upstream.url, `storage: { fallback_dir: "${fallback}" }`)
    relay = await start(storage, yaml)
    expect(relay.context.dataDir).toBe(fallback)
    const events = makeEvents('ro-agent', 0, 5)
    expect(await postEvents(relay.url, events)).toBe(204)
    await relay.stop()
    relay = undefined
    expect(upstream.accepted()).toEqual([])
    // `regent relay logs -c FILE` finds them there too.
    const configFile = join(dir, 'relay.yaml')
    writeFileSync(configFile, `relay:\n  storage:\n    dir: ${storage}\n    fallback_dir: ${fallback}\n`)
    const status = await runRegent(['relay', 'logs', 'status', '-c', configFile, '--format', 'json'])
    expect(status.stderr).toBe('')
    expect((JSON.parse(status.stdout) as { events: number }).events).toBe(5)

    upstream.answerByDefault({ status: 204 })
    relay = await start(storage, yaml)
    await upstream.waitFor(() => upstream!.accepted().length >= 5, 10_000, 'the five events')
    expect(new Set(upstream.accepted())).toEqual(new Set(events))
  })

  it('moves what the fallback holds into the storage folder once it is writable again, and forwards it', async () => {
    const blocked = belowAFile()
    const fallback = join(dir, 'fallback')
    upstream = await LogsUpstream.start()
    upstream.answerByDefault({ status: 503 })
    const yaml = configFor(upstream.url, `storage: { fallback_dir: "${fallback}" }`)
    relay = await start(blocked.path, yaml)
    const events = makeEvents('ro-agent', 0, 7)
    expect(await postEvents(relay.url, events)).toBe(204)
    await relay.stop()
    relay = undefined

    blocked.unblock()
    upstream.answerByDefault({ status: 204 })
    relay = await start(blocked.path, yaml)
    expect(relay.context.dataDir).toBe(blocked.path)
    await upstream.waitFor(() => upstream!.accepted().length >= 7, 10_000, 'the seven events')
    expect(new Set(upstream.accepted())).toEqual(new Set(events))
    expect(existsSync(join(fallback, 'decision-logs.db'))).toBe(false)
  })
})
