import { gzipSync } from 'node:zlib'
import { describe, expect, it } from 'vitest'
import { BundleError, readBundle } from '../../../core/bundle/index.js'
import { headerBlock, tarGzOf, tarOf } from './fixtures.js'

async function failure(input: Uint8Array, options = {}): Promise<BundleError> {
  const started = performance.now()
  const err = await readBundle(input, options).then(
    () => undefined,
    (e: unknown) => e,
  )
  expect(err).toBeInstanceOf(BundleError)
  // Hostile input must fail fast; generous bound for a loaded 2-core machine.
  expect(performance.now() - started).toBeLessThan(5_000)
  return err as BundleError
}

const ZEROS_1M = gzipSync(Buffer.alloc(1024 * 1024))

/** A gzip stream of many members: `prefix` then `megabytes` MiB of zeros, ~1 KiB per MiB. */
function zeroBomb(prefix: Buffer, megabytes: number): Buffer {
  return Buffer.concat([gzipSync(prefix), ...Array.from({ length: megabytes }, () => ZEROS_1M)])
}

describe('hostile tarballs', () => {
  it.each([
    ['../escape.rego', /outside the bundle root/],
    ['a/../../escape.rego', /outside the bundle root/],
    ['//etc/passwd', /absolute path/],
    ['C:/windows/x.rego', /absolute Windows path/],
    ['a\\..\\x.rego', /backslash/],
  ])('refuses the entry %s', async (name, message) => {
    const err = await failure(await tarGzOf([{ name, body: 'package x\n' }]))
    expect(err.code).toBe('bundle_entry_unsafe')
    expect(err.message).toMatch(message)
    expect(err.message).toContain(JSON.stringify(name))
  })

  it('reads / and ./ prefixed names as the same bundle paths', async () => {
    const bundle = await readBundle(
      await tarGzOf([
        { name: '/a/policy.rego', body: 'package a\n' },
        { name: './b/data.json', body: '{"x": 1}' },
        { name: 'c/data.yaml', body: 'w: 2\n' },
      ]),
    )
    expect(bundle.modules.map((m) => m.path)).toEqual(['a/policy.rego'])
    expect(bundle.dataFiles.map((d) => d.path)).toEqual(['b/data.json', 'c/data.yaml'])
    expect(bundle.data).toEqual({ b: { x: 1 }, c: { w: 2 } })
  })

  it('ignores symlinks, hard links, devices, fifos and directories', async () => {
    const bundle = await readBundle(
      await tarGzOf([
        { name: 'dir/', type: 'directory' },
        { name: 'evil-link', type: 'symlink', linkname: '/etc/passwd' },
        { name: '../outside-link', type: 'symlink', linkname: '/etc/shadow' },
        { name: 'hard', type: 'link', linkname: 'dir/policy.rego' },
        { name: 'tty', type: 'character-device' },
        { name: 'disk', type: 'block-device' },
        { name: 'pipe', type: 'fifo' },
        { name: 'dir/policy.rego', body: 'package dir\n' },
      ]),
    )
    expect(bundle.modules.map((m) => m.path)).toEqual(['dir/policy.rego'])
    expect(bundle.files).toEqual([])
  })

  it('refuses duplicate paths, however they are spelled', async () => {
    const err = await failure(
      await tarGzOf([
        { name: './p.rego', body: 'package p\n' },
        { name: '/p.rego', body: 'package p\n' },
      ]),
    )
    expect(err.code).toBe('bundle_entry_duplicate')
    expect(err.message).toContain('"p.rego"')
  })

  it('refuses an entry declaring more than the size limit before inflating it', async () => {
    // 4 GiB declared; the archive itself is a few KiB.
    const bomb = gzipSync(Buffer.concat([headerBlock('big/data.json', 4 * 1024 ** 3), Buffer.alloc(4096)]))
    const err = await failure(bomb)
    expect(err.code).toBe('bundle_size_limit')
    expect(err.message).toContain('big/data.json')
  })

  it('refuses a gzip bomb of many entries under the per-file limit by its inflated total', async () => {
    // Each entry: its header, then 4 MiB of zeros as four pre-compressed gzip members.
    const bomb = Buffer.concat(
      Array.from({ length: 60 }, (_, i) => [
        gzipSync(headerBlock(`f${i}.bin`, 4 * 1024 * 1024)),
        ...Array(4).fill(ZEROS_1M),
      ]).flat(),
    )
    expect(bomb.length).toBeLessThan(2 * 1024 * 1024)
    const err = await failure(bomb, { sizeLimitBytes: 4 * 1024 * 1024, maxEntries: 1000 })
    expect(err.code).toBe('bundle_size_limit')
    expect(err.message).toMatch(/inflates to more than/)
  })

  it('refuses a gzip bomb of zero blocks after the archive, with default limits', async () => {
    const small = await tarOf([{ name: 'p.rego', body: 'package p\n' }])
    // 1 GiB of zeros in 1 MiB of gzip: tar parsers read zero blocks as padding, one by one.
    const err = await failure(zeroBomb(small, 1024))
    expect(err.code).toBe('bundle_archive_invalid')
    expect(err.message).toMatch(/belong to no entry/)
  })

  it('still reads a genuine archive whose files are mostly zeros', async () => {
    const bundle = await readBundle(
      await tarGzOf([{ name: 'zeros.bin', body: Buffer.alloc(20 * 1024 * 1024) }]),
    )
    expect(bundle.files[0]?.raw.byteLength).toBe(20 * 1024 * 1024)
  })

  it('reads a 10,000-entry bundle, and refuses it past maxEntries', async () => {
    const entries = Array.from({ length: 10_000 }, (_, i) => ({
      name: `p${i}/policy.rego`,
      body: `package p${i}\n`,
    }))
    const tarball = await tarGzOf(entries)
    const started = performance.now()
    const bundle = await readBundle(tarball)
    expect(bundle.modules).toHaveLength(10_000)
    expect(performance.now() - started).toBeLessThan(5_000)
    const err = await failure(tarball, { maxEntries: 5_000 })
    expect(err.code).toBe('bundle_entry_limit')
    expect(err.message).toContain('5000')
  })

  it.each([
    ['not gzip at all', () => Buffer.from('{"not": "a tarball"}'), /not a gzipped tarball/],
    [
      'corrupt gzip',
      () => Buffer.concat([Buffer.from([0x1f, 0x8b, 8, 0]), Buffer.alloc(64, 0x5a)]),
      /gzip data is corrupt/,
    ],
    [
      'truncated gzip',
      async () => (await tarGzOf([{ name: 'p.rego', body: 'package p\n' }])).subarray(0, 40),
      /corrupt/,
    ],
    ['garbage inside valid gzip', () => gzipSync(Buffer.alloc(2048, 0x41)), /tar archive is corrupt/],
  ])('gives one clear error for %s', async (_name, make, message) => {
    const err = await failure(await make())
    expect(err.code).toBe('bundle_archive_invalid')
    expect(err.message).toMatch(message)
  })

  it('refuses a file over a configured per-file limit while reading it', async () => {
    const err = await failure(await tarGzOf([{ name: 'data.json', body: `{"x": "${'a'.repeat(2000)}"}` }]), {
      sizeLimitBytes: 1000,
    })
    expect(err.code).toBe('bundle_size_limit')
    expect(err.message).toContain('data.json')
  })
})
