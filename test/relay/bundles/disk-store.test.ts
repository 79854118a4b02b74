import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import pino from 'pino'
import { afterEach, beforeEach, describe, expect, it } from 'vitest'
import { BundleDiskStore, sha256Hex } from '../../../plugins/bundle/disk-store.js'

const logger = pino({ level: 'silent' })
const meta = (revision: string) => ({
  etag: `"${revision}"`,
  revision,
  verifiedAt: new Date(0).toISOString(),
})

describe('BundleDiskStore', () => {
  let dir: string
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'regent-disk-'))
  })
  afterEach(async () => {
    await rm(dir, { recursive: true, force: true })
  })

  it('keeps the exact bytes with their meta, one copy per name, names with slashes apart', async () => {
    const store = new BundleDiskStore(dir, logger)
    const one = new Uint8Array([1, 2, 3])
    const two = new Uint8Array([4, 5, 6, 7])
    await store.save('bundle', 'systems/a', one, { ...meta('r1'), upstreamEtag: '"up1"' })
    await store.save('bundle', 'systems/a', two, meta('r2'))
    await store.save('discovery', 'systems/a', one, meta('d1'))
    const loaded = await store.load('bundle', 'systems/a')
    expect(loaded?.bytes).toEqual(two)
    expect(loaded?.meta).toMatchObject({ revision: 'r2', etag: '"r2"', size: 4, sha256: sha256Hex(two) })
    expect(loaded?.meta.upstreamEtag).toBeUndefined()
    expect((await store.load('discovery', 'systems/a'))?.meta.revision).toBe('d1')
    expect(await store.load('bundle', 'other')).toBeUndefined()
    const folder = join(dir, 'bundles', 'bundle', encodeURIComponent('systems/a'))
    expect((await readdir(folder)).sort()).toEqual([`${sha256Hex(two)}.tar.gz`, 'meta.json'])
  })

  it('never serves a torn or tampered file, and sweeps temp files of an interrupted write', async () => {
    const store = new BundleDiskStore(dir, logger)
    const bytes = new Uint8Array([9, 9, 9])
    await store.save('bundle', 'b', bytes, meta('r1'))
    const folder = join(dir, 'bundles', 'bundle', 'b')
    // A write killed before its rename leaves only a temp file behind: the old copy is served.
    await writeFile(join(folder, '.abc.tar.gz.tmp-123456'), 'partial')
    expect((await store.load('bundle', 'b'))?.meta.revision).toBe('r1')
    expect(await readdir(folder)).not.toContain('.abc.tar.gz.tmp-123456')
    // A corrupted bundle file is refused.
    await writeFile(join(folder, `${sha256Hex(bytes)}.tar.gz`), new Uint8Array([9, 9, 8]))
    expect(await store.load('bundle', 'b')).toBeUndefined()
    // So is an unreadable meta.json.
    await writeFile(join(folder, 'meta.json'), '{"etag": ')
    expect(await store.load('bundle', 'b')).toBeUndefined()
  })

  it('writes meta.json last, so it always names a complete file', async () => {
    const store = new BundleDiskStore(dir, logger)
    const bytes = new Uint8Array(1000).fill(3)
    await store.save('bundle', 'b', bytes, meta('r1'))
    const m = JSON.parse(await readFile(join(dir, 'bundles', 'bundle', 'b', 'meta.json'), 'utf8'))
    const file = await readFile(join(dir, 'bundles', 'bundle', 'b', `${m.sha256}.tar.gz`))
    expect(sha256Hex(file)).toBe(m.sha256)
  })
})
