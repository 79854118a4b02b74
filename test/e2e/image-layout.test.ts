/**
 * The image's modes work with the image's defaults (issue 17 item 16): the built `dist/`, run as
 * the image runs it (uid 1000, WORKDIR /app read-only, the volume the only writable path, the
 * Dockerfile's ENV), starts `service`, `relay` and `run -s` with no flags, keeps their state under
 * the volume, listens on every interface so EXPOSEd ports are reachable, and the image's
 * HEALTHCHECK (`node /app/bin/healthcheck.js`) finds each mode's port and answers 0, or 1 when
 * the server does not answer as asked. Docker itself is not needed: see test/support/image-sandbox.ts.
 */
import { chownSync, existsSync, mkdirSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs'
import { join } from 'node:path'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import {
  buildImageApp,
  type Container,
  IMAGE_UID,
  REPO,
  sandboxUnavailable,
  startContainer,
} from '../support/image-sandbox.js'

const unavailable = sandboxUnavailable()
if (unavailable) console.warn(`image-layout: skipped, ${unavailable}`)

/** Polls the health check until it passes; bounded by count. */
async function healthy(container: Container, arg?: string): Promise<{ code: number | null; output: string }> {
  let last = { code: null as number | null, output: '' }
  for (let attempt = 0; attempt < 120; attempt++) {
    if (container.child.exitCode !== null) break
    last = container.healthcheck(arg)
    if (last.code === 0) return last
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  return { ...last, output: `${last.output}\n--- container output:\n${container.output()}` }
}

/** The `addr` of the server's "listening" log line (logs are flushed asynchronously: poll, bounded). */
async function listeningAddr(container: Container): Promise<string | undefined> {
  for (let attempt = 0; attempt < 50; attempt++) {
    for (const line of container.output().split('\n')) {
      try {
        const entry = JSON.parse(line) as { msg?: string; addr?: string }
        if (entry.msg === 'listening') return entry.addr
      } catch {}
    }
    await new Promise((resolve) => setTimeout(resolve, 100))
  }
  return undefined
}

describe.skipIf(unavailable !== undefined)('the image layout', () => {
  let root: string
  let app: string
  let volume: string
  let readOnly: string[]
  let running: Container | undefined

  beforeAll(() => {
    root = mkdtempSync('/tmp/regent-image-')
    app = buildImageApp(root)
    // The relay's config, as a ConfigMap would mount it: no relay: section, so image defaults apply.
    mkdirSync(join(root, 'etc'))
    writeFileSync(
      join(root, 'etc/relay.yaml'),
      'services:\n  - name: regent\n    url: http://127.0.0.1:9/v1\n',
    )
    writeFileSync(
      join(root, 'etc/relay-loopback.yaml'),
      'services:\n  - name: regent\n    url: http://127.0.0.1:9/v1\nrelay:\n  addr: 127.0.0.1:8383\n',
    )
    readOnly = [...new Set(['/tmp', '/var/tmp', '/dev/shm', REPO, realpathSync(join(REPO, 'node_modules'))])]
  }, 300_000)

  afterEach(async () => {
    await running?.stop()
    running = undefined
  }, 30_000)

  afterAll(() => {
    if (root) rmSync(root, { recursive: true, force: true })
  })

  /** A fresh volume owned by the image's user, as the Dockerfile prepares /var/lib/regent. */
  function freshVolume(name: string): string {
    volume = join(root, name)
    mkdirSync(volume, { mode: 0o700 })
    chownSync(volume, IMAGE_UID, IMAGE_UID)
    return volume
  }

  it('service: starts with no flags, keeps its database on the volume, listens on 0.0.0.0:8181', async () => {
    const vol = freshVolume('volume-service')
    running = startContainer(app, vol, ['service'], readOnly)
    const check = await healthy(running)
    expect(check.code, check.output).toBe(0)
    expect(await listeningAddr(running)).toBe('http://0.0.0.0:8181')
    expect(existsSync(join(vol, 'service/service.db'))).toBe(true)
    expect(running.healthcheck('/health/ready').code).toBe(0)
    // The check fails when the server does not answer 2xx.
    const missing = running.healthcheck('/no-such-path')
    expect(missing.code, missing.output).toBe(1)
    expect(missing.output).toMatch(/127\.0\.0\.1:8181\/no-such-path answered 404/)
  }, 90_000)

  it('relay: starts with the image defaults, keeps its storage on the volume, listens on 0.0.0.0:8282', async () => {
    const vol = freshVolume('volume-relay')
    running = startContainer(app, vol, ['relay', '-c', join(root, 'etc/relay.yaml')], readOnly)
    const check = await healthy(running)
    expect(check.code, check.output).toBe(0)
    expect(await listeningAddr(running)).toBe('http://0.0.0.0:8282')
    expect(existsSync(join(vol, 'relay'))).toBe(true)
  }, 90_000)

  it('relay: the health check follows relay.addr of the config file (a sidecar on loopback)', async () => {
    const vol = freshVolume('volume-relay-loopback')
    running = startContainer(app, vol, ['relay', '-c', join(root, 'etc/relay-loopback.yaml')], readOnly)
    const check = await healthy(running, '/health/live')
    expect(check.code, check.output).toBe(0)
    expect(await listeningAddr(running)).toBe('http://127.0.0.1:8383')
  }, 90_000)

  it('run -s: listens on 0.0.0.0:8181 and passes the health check', async () => {
    const vol = freshVolume('volume-run')
    running = startContainer(app, vol, ['run', '-s'], readOnly)
    const check = await healthy(running)
    expect(check.code, check.output).toBe(0)
    expect(await listeningAddr(running)).toBe('http://0.0.0.0:8181')
  }, 90_000)

  it('run -s -a :9393: the health check follows the flag (Go-style wildcard host)', async () => {
    const vol = freshVolume('volume-run-addr')
    running = startContainer(app, vol, ['run', '-s', '-a', ':9393'], readOnly)
    const check = await healthy(running)
    expect(check.code, check.output).toBe(0)
    expect(await listeningAddr(running)).toBe('http://0.0.0.0:9393')
  }, 90_000)
})
