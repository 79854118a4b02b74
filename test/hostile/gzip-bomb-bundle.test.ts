/**
 * Hostile upstream: a bundle that is a gzip bomb (about 1 MB on the wire, a data.json of hundreds
 * of MiB of zeros inflated). The relay used to inflate it whole before checking anything (RSS near
 * 2 GB) and to download it again on every poll. Now: refused at the tar header that declares more
 * than `relay.bundles.max_inflated_bytes`, or, with signing configured, by the signature checked
 * while streaming; the last good bundle stays served; and the refused ETag is not fetched again.
 */
import { readFileSync, writeFileSync } from 'node:fs'
import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { join } from 'node:path'
import { gzipSync } from 'node:zlib'
import { request } from 'undici'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { signFiles } from '../../core/bundle/sign.js'
import { headerBlock, keyPairFor } from '../core/bundle/fixtures.js'
import { eventually, tempDir } from '../relay/helpers.js'
import { type RegentProcess, startRegent } from '../relay/support/processes.js'
import { makeBundle } from '../support/fault-upstream.js'

const MiB = 1024 * 1024
const BUNDLE_PATH = '/v1/bundles/authz'
/** Peak RSS the relay may reach: generous (tsx and the engine load ~150-250 MB), far below a bomb. */
const PEAK_RSS_LIMIT = 450 * MiB

/**
 * A tar.gz whose data.json holds `mebibytes` MiB of zeros, as gzip members of 1 MiB each (a
 * concatenation of gzip members is one valid gzip stream): about 1 KB per MiB, built in memory
 * without ever holding the inflated bytes.
 */
function gzipBomb(mebibytes: number, signatures?: string): Buffer {
  const zeros = gzipSync(Buffer.alloc(MiB), { level: 9 })
  const members: Buffer[] = []
  if (signatures !== undefined) {
    const body = Buffer.from(JSON.stringify({ signatures: [signatures] }))
    const padding = Buffer.alloc((512 - (body.length % 512)) % 512)
    members.push(gzipSync(Buffer.concat([headerBlock('/.signatures.json', body.length), body, padding])))
  }
  members.push(gzipSync(headerBlock('/data.json', mebibytes * MiB)))
  for (let i = 0; i < mebibytes; i++) members.push(zeros)
  members.push(gzipSync(Buffer.alloc(1024))) // end of archive
  return Buffer.concat(members)
}

/** An upstream on 127.0.0.1 that honours If-None-Match lists and counts what it sends. */
class CountingUpstream {
  bundle: { bytes: Uint8Array; etag: string } = { bytes: new Uint8Array(), etag: '""' }
  readonly sent: Array<{ etag: string; status: number; bytes: number }> = []
  private server!: Server
  url = ''

  async start(): Promise<this> {
    this.server = createServer((req, res) => {
      const { bytes, etag } = this.bundle
      const tags = String(req.headers['if-none-match'] ?? '')
        .split(',')
        .map((t) => t.trim())
      if (tags.includes(etag)) {
        this.sent.push({ etag, status: 304, bytes: 0 })
        res.writeHead(304, { ETag: etag }).end()
        return
      }
      this.sent.push({ etag, status: 200, bytes: bytes.byteLength })
      res.writeHead(200, { ETag: etag, 'Content-Type': 'application/gzip' }).end(Buffer.from(bytes))
    })
    await new Promise<void>((resolve) => this.server.listen(0, '127.0.0.1', resolve))
    this.url = `http://127.0.0.1:${(this.server.address() as AddressInfo).port}`
    return this
  }

  async stop(): Promise<void> {
    this.server.closeAllConnections()
    await new Promise((resolve) => this.server.close(resolve))
  }

  /** Full downloads of the bundle with `etag`. */
  downloadsOf(etag: string): number {
    return this.sent.filter((s) => s.etag === etag && s.status === 200).length
  }
}

/** The peak resident set of a process (Linux VmHWM), in bytes. */
function peakRss(pid: number): number {
  const match = /VmHWM:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))
  return Number(match?.[1] ?? 0) * 1024
}

describe('hostile: a gzip bomb from upstream', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>
  let upstream: CountingUpstream
  let relay: RegentProcess | undefined
  beforeEach(async () => {
    dir = await tempDir('regent-hostile-bomb-')
    upstream = await new CountingUpstream().start()
  })
  afterEach(async () => {
    await relay?.stop()
    relay = undefined
    await upstream.stop()
    await dir.cleanup()
  })

  async function startRelay(extraConfig: string): Promise<RegentProcess> {
    const file = join(dir.dir, 'relay.yaml')
    writeFileSync(
      file,
      `services: { up: { url: "${upstream.url}/v1" } }
bundles:
  authz:
    polling: { min_delay_seconds: 1, max_delay_seconds: 6 }
${extraConfig}`,
    )
    return startRegent(['relay', '-c', file, '--addr', '127.0.0.1:0', '--data-dir', join(dir.dir, 'data')])
  }

  /** Serves the good bundle, then the bomb; checks refusal, memory, last good and no re-download. */
  async function attack(good: Uint8Array, bomb: Buffer, reason: string): Promise<void> {
    const r = relay!
    upstream.bundle = { bytes: good, etag: '"good"' }
    await eventually(async () => (await request(`${r.url}${BUNDLE_PATH}`)).statusCode === 200, 20_000, 'good')
    const rssBefore = peakRss(r.child.pid!)

    upstream.bundle = { bytes: bomb, etag: '"bomb"' }
    const refused = () =>
      r.logs.some((l) => l.msg === 'bundle refused; last good bundle kept' && l.reason === reason)
    await eventually(async () => refused(), 60_000, 'bomb refused')
    // The next polls (the first at once, as after any error, the second 1-6 s later) must be
    // 304s: a refused bundle is left alone for twice max_delay_seconds (12 s), then doubling.
    const polled = upstream.sent.length
    await eventually(async () => upstream.sent.length >= polled + 2, 20_000, 'two more polls')
    expect(upstream.downloadsOf('"bomb"')).toBe(1)
    expect(upstream.sent.slice(polled).every((s) => s.status === 304)).toBe(true)

    const served = await request(`${r.url}${BUNDLE_PATH}`)
    expect(served.statusCode).toBe(200)
    expect(Buffer.from(await served.body.arrayBuffer()).equals(Buffer.from(good))).toBe(true)
    const peak = peakRss(r.child.pid!)
    expect(
      peak,
      `peak RSS ${Math.round(peak / MiB)} MiB (before the bomb ${Math.round(rssBefore / MiB)} MiB)`,
    ).toBeLessThan(PEAK_RSS_LIMIT)
  }

  it('without signing: refused at the header past max_inflated_bytes (900 MiB of zeros in ~1 MB)', async () => {
    const bomb = gzipBomb(900)
    expect(bomb.byteLength).toBeLessThan(2 * MiB)
    relay = await startRelay('')
    await attack(await makeBundle({ revision: 'good' }), bomb, 'bundle_size_limit')
  }, 120_000)

  it('with signing: a bomb under a raised bound is refused by its signature, streaming, never held', async () => {
    // ES256: fresh keys each call (the fixtures share one RSA key between calls).
    const keys = keyPairFor('ES256')
    const forger = keyPairFor('ES256')
    const good = await makeBundle({
      revision: 'good',
      signingKey: keys.privatePem,
      algorithm: 'ES256',
      keyId: 'k1',
    })
    // A JWT signed by another key, listing the bomb's data.json.
    const forged = await signFiles([{ name: 'data.json', hash: '00', algorithm: 'SHA-256' }], {
      key: forger.privatePem,
      algorithm: 'ES256',
      keyId: 'k1',
    })
    relay = await startRelay(`    signing: { keyid: k1 }
keys:
  k1: { key: ${JSON.stringify(keys.publicPem)}, algorithm: ES256 }
relay:
  bundles: { max_inflated_bytes: 1073741824 }
`)
    await attack(good, gzipBomb(600, forged), 'bundle_signature_invalid')
  }, 180_000)
})
