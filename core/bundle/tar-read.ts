/**
 * Reading a gzipped tarball into entries, streaming: the bytes are inflated and split into entries
 * by tar-stream without ever holding the whole inflated archive. Hostile archives are bounded:
 * a declared size over the per-file limit is refused at the header (before inflating a byte of
 * it), the inflated total and the entry count are capped, names that escape the root and
 * duplicate names are refused, and links, devices and fifos are skipped as OPA skips them.
 */
import { Readable, Transform, type TransformCallback } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { createGunzip } from 'node:zlib'
import { extract, type Header } from 'tar-stream'
import { type BundleError, bundleError, reason } from './errors.js'
import { normaliseEntryPath } from './paths.js'
import type { BundleEntry } from './types.js'

/** OPA's default `size_limit_bytes`: 1 GiB per file. */
export const DEFAULT_SIZE_LIMIT_BYTES = 1024 * 1024 * 1024
/** regent's default cap on archive entries (OPA has none; a hostile archive could hold millions). */
export const DEFAULT_MAX_ENTRIES = 100_000

/** regent's default cap on the inflated size of a whole tarball: a gzip bomb stops there. */
export const DEFAULT_MAX_INFLATED_BYTES = 64 * 1024 * 1024

/** Limits applied while reading an archive. */
export interface ArchiveLimits {
  sizeLimitBytes: number
  maxEntries: number
  /** Inflated bytes of the whole tar stream; default: one file at the limit plus tar overhead. */
  totalSizeLimitBytes?: number
}

/** One regular file of a tarball as it streams past: read `body` or skip it with `skip()`. */
export interface StreamedEntry {
  path: string
  /** The size its header declares (already checked against the limits). */
  size: number
  body: AsyncIterable<Uint8Array>
  skip(): void
}

/** The entry types whose content is read; everything else (links, devices, fifos) is skipped. */
const REGULAR = new Set<Header['type']>(['file', 'contiguous-file'])

/**
 * The regular files of a gzipped tar, in archive order, with normalised paths.
 * @throws BundleError with a message naming the entry, or the archive when gzip or tar is corrupt.
 */
export async function readTarball(bytes: Uint8Array, limits: ArchiveLimits): Promise<BundleEntry[]> {
  const entries: BundleEntry[] = []
  await walkTarball(bytes, limits, async (entry) => {
    entries.push({ path: entry.path, raw: await readEntryBody(entry, limits.sizeLimitBytes) })
  })
  return entries
}

/**
 * Streams the regular files of a gzipped tar through `visit`, one at a time, holding none of them:
 * what `visit` keeps is up to it. Every limit of `readTarball` applies, and a header whose declared
 * size would take the archive past its inflated limit is refused before its body is inflated.
 * @throws BundleError as readTarball.
 */
export async function walkTarball(
  bytes: Uint8Array,
  limits: ArchiveLimits,
  visit: (entry: StreamedEntry) => Promise<void>,
): Promise<void> {
  if (bytes.byteLength < 2 || bytes[0] !== 0x1f || bytes[1] !== 0x8b) {
    throw bundleError('bundle_archive_invalid', 'bundle is not a gzipped tarball (no gzip header)')
  }
  const totalLimit = limits.totalSizeLimitBytes ?? limits.sizeLimitBytes + 1024 * limits.maxEntries
  const extractor = extract()
  const guard = new InflatedSizeGuard(totalLimit)
  const done = pipeline(Readable.from([bytes]), createGunzip(), guard, extractor)
  // The loop below may stop early; `done` must not reject unobserved meanwhile.
  done.catch(() => {})
  const seen = new Set<string>()
  let count = 0
  let failure: BundleError | undefined
  try {
    for await (const entry of extractor) {
      const header = entry.header
      count++
      guard.account(header.size ?? 0)
      if (count > limits.maxEntries) {
        throw bundleError('bundle_entry_limit', `bundle has more than ${limits.maxEntries} entries`)
      }
      // Refused at the header: a bomb's one huge file is never inflated past its first block.
      if (guard.declaredPastLimit()) throw inflatedTooLarge(totalLimit, header.name)
      if (!REGULAR.has(header.type)) {
        entry.resume()
        continue
      }
      const path = normaliseEntryPath(header.name)
      if ((header.size ?? 0) > limits.sizeLimitBytes) throw tooLarge(header.name, limits.sizeLimitBytes)
      if (seen.has(path)) {
        throw bundleError('bundle_entry_duplicate', `bundle has two entries for ${JSON.stringify(path)}`)
      }
      seen.add(path)
      let consumed = false
      const body = entry as unknown as AsyncIterable<Uint8Array>
      await visit({
        path,
        size: header.size ?? 0,
        body: {
          [Symbol.asyncIterator]: () => {
            consumed = true
            return body[Symbol.asyncIterator]()
          },
        },
        skip: () => {
          consumed = true
          entry.resume()
        },
      })
      if (!consumed) entry.resume()
    }
    await done
  } catch (err) {
    failure = err instanceof Error && err.name === 'BundleError' ? (err as BundleError) : archiveError(err)
  } finally {
    extractor.destroy()
  }
  if (failure) throw failure
}

/** The bytes of one streamed entry, refused past `limit`. */
export async function readEntryBody(entry: StreamedEntry, limit: number): Promise<Uint8Array> {
  const chunks: Uint8Array[] = []
  let size = 0
  for await (const chunk of entry.body) {
    size += chunk.byteLength
    if (size > limit) throw tooLarge(entry.path, limit)
    chunks.push(chunk)
  }
  return chunks.length === 1 ? chunks[0]! : Buffer.concat(chunks, size)
}

function inflatedTooLarge(limit: number, name?: string) {
  const which =
    name === undefined ? '' : ` (entry ${JSON.stringify(name)} declares more than the rest allows)`
  return bundleError('bundle_size_limit', `bundle inflates to more than ${limit} bytes${which}`)
}

function tooLarge(name: string, limit: number) {
  return bundleError(
    'bundle_size_limit',
    `bundle file ${JSON.stringify(name)} exceeds the size limit of ${limit} bytes`,
  )
}

function archiveError(err: unknown): BundleError {
  if (err instanceof Error && err.name === 'BundleError') return err as BundleError
  const code = (err as NodeJS.ErrnoException | undefined)?.code ?? ''
  const what = code.startsWith('Z_') ? 'gzip data is corrupt' : 'tar archive is corrupt'
  return bundleError('bundle_archive_invalid', `bundle ${what}: ${reason(err)}`, err)
}

/** Inflated bytes allowed beyond the entries seen: pipeline buffering plus headers not reported. */
const SLACK_BYTES = 4 * 1024 * 1024
const SLACK_PER_ENTRY = 8 * 1024

/**
 * The gzip-bomb guard between gunzip and tar. It fails the stream past the total inflated limit,
 * and also once the inflated bytes run far ahead of what the entries seen so far account for:
 * backpressure keeps a genuine archive within a few buffers of the parser, so a large surplus
 * means data the parser skips (megabytes of zero blocks after the archive's end, for instance).
 */
class InflatedSizeGuard extends Transform {
  private seen = 0
  private accounted = 0
  private entries = 0

  constructor(private readonly limit: number) {
    super()
  }

  /** Records an entry header and its declared body (padded to 512-byte blocks). */
  account(size: number): void {
    this.entries++
    this.accounted += 512 + Math.ceil(size / 512) * 512
  }

  /** Whether the headers seen so far declare more bytes than the limit allows. */
  declaredPastLimit(): boolean {
    return this.accounted > this.limit
  }

  override _transform(chunk: Buffer, _encoding: BufferEncoding, callback: TransformCallback): void {
    this.seen += chunk.byteLength
    if (this.seen > this.limit) {
      callback(inflatedTooLarge(this.limit))
      return
    }
    if (this.seen > this.accounted + SLACK_BYTES + SLACK_PER_ENTRY * this.entries) {
      const extra = this.seen - this.accounted
      callback(
        bundleError(
          'bundle_archive_invalid',
          `bundle tarball has over ${extra} bytes of data that belong to no entry`,
        ),
      )
      return
    }
    callback(null, chunk)
  }
}
