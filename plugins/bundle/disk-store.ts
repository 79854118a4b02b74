/**
 * The last good bundle of each target on disk, byte for byte as downloaded (never re-tarred:
 * agents verify the upstream signature themselves, opa#3472), with its ETag and revision.
 *
 * Layout: `<dir>/bundles/<kind>/<encoded name>/` holds `<sha256>.tar.gz` and `meta.json`.
 * A write goes bytes first (temp file, fsync, rename, fsync dir), then `meta.json` the same way:
 * the rename of `meta.json` is the commit point. A kill -9 at any moment leaves either the old
 * meta pointing at the old file (kept until the new meta is in place) or the new one; stray temp
 * files are swept on load. The load checks the digest, so a torn file is never served.
 */
import { createHash, randomBytes } from 'node:crypto'
import { open, readdir, readFile, rename, rm } from 'node:fs/promises'
import { join } from 'node:path'
import type { Logger } from 'pino'
import { makePrivateDirAsync, PRIVATE_FILE_MODE } from '../../core/state-files.js'
import type { TargetKind } from './targets.js'

/** What is kept beside the bytes. */
export interface StoredBundleMeta {
  /** The ETag the relay answers agents with. */
  etag: string
  /** The upstream's ETag, sent as `If-None-Match`; absent when the upstream sent none. */
  upstreamEtag?: string
  revision: string
  sha256: string
  size: number
  /** When the bytes were downloaded and verified (ISO time). */
  verifiedAt: string
}

/** A bundle read back from disk. */
export interface StoredBundle {
  meta: StoredBundleMeta
  bytes: Uint8Array
}

const META_FILE = 'meta.json'
const TEMP_MARK = '.tmp-'

/** Reads and writes last-good bundles under one folder. */
export class BundleDiskStore {
  constructor(
    private readonly dir: string,
    private readonly logger: Logger,
  ) {}

  /** Atomically replaces the stored bundle of (kind, name). */
  async save(
    kind: TargetKind,
    name: string,
    bytes: Uint8Array,
    meta: Omit<StoredBundleMeta, 'sha256' | 'size'>,
  ) {
    const folder = this.folderOf(kind, name)
    await makePrivateDirAsync(folder)
    const sha256 = sha256Hex(bytes)
    const bundleFile = `${sha256}.tar.gz`
    await writeAtomically(folder, bundleFile, bytes)
    const full: StoredBundleMeta = { ...meta, sha256, size: bytes.byteLength }
    await writeAtomically(folder, META_FILE, Buffer.from(`${JSON.stringify(full, null, 2)}\n`))
    // Only now is the old file unreferenced.
    for (const entry of await readdir(folder)) {
      if (entry !== bundleFile && entry !== META_FILE) await rm(join(folder, entry), { force: true })
    }
  }

  /**
   * The stored bundle of (kind, name), or undefined when there is none or it is unusable (a
   * missing file, a digest mismatch): those are logged, never thrown, so a bad disk degrades to
   * "no copy" instead of stopping the relay (opa#3837).
   */
  async load(kind: TargetKind, name: string): Promise<StoredBundle | undefined> {
    const folder = this.folderOf(kind, name)
    let metaText: string
    try {
      metaText = await readFile(join(folder, META_FILE), 'utf8')
    } catch (err) {
      if ((err as NodeJS.ErrnoException).code !== 'ENOENT') this.warn(kind, name, 'meta_unreadable', err)
      return undefined
    }
    await this.sweepTemporaries(folder)
    let meta: StoredBundleMeta
    try {
      meta = parseMeta(JSON.parse(metaText))
    } catch (err) {
      this.warn(kind, name, 'meta_invalid', err)
      return undefined
    }
    let bytes: Buffer
    try {
      bytes = await readFile(join(folder, `${meta.sha256}.tar.gz`))
    } catch (err) {
      this.warn(kind, name, 'bundle_unreadable', err)
      return undefined
    }
    if (bytes.byteLength !== meta.size || sha256Hex(bytes) !== meta.sha256) {
      this.warn(kind, name, 'digest_mismatch', new Error('stored bytes do not match their recorded digest'))
      return undefined
    }
    return { meta, bytes: new Uint8Array(bytes.buffer, bytes.byteOffset, bytes.byteLength) }
  }

  private folderOf(kind: TargetKind, name: string): string {
    // Bundle names may contain `/` (`systems/<id>`); one folder per name keeps them apart.
    return join(this.dir, 'bundles', kind, encodeURIComponent(name))
  }

  private async sweepTemporaries(folder: string): Promise<void> {
    for (const entry of await readdir(folder)) {
      if (entry.includes(TEMP_MARK)) await rm(join(folder, entry), { force: true })
    }
  }

  private warn(kind: TargetKind, name: string, reason: string, err: unknown) {
    this.logger.warn({ kind, bundle: name, reason, err: (err as Error).message }, 'stored bundle ignored')
  }
}

/** Hex SHA-256 of the bytes. */
export function sha256Hex(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex')
}

async function writeAtomically(folder: string, file: string, bytes: Uint8Array): Promise<void> {
  const temp = join(folder, `.${file}${TEMP_MARK}${randomBytes(6).toString('hex')}`)
  const handle = await open(temp, 'w', PRIVATE_FILE_MODE)
  try {
    await handle.writeFile(bytes)
    await handle.sync()
  } finally {
    await handle.close()
  }
  await rename(temp, join(folder, file))
  await syncDirectory(folder)
}

async function syncDirectory(folder: string): Promise<void> {
  // The rename is durable only once the directory entry is; some filesystems refuse a
  // directory fsync (EINVAL/EISDIR), which is then the best that can be done.
  const dir = await open(folder, 'r')
  try {
    await dir.sync()
  } catch {
    /* not supported here */
  } finally {
    await dir.close()
  }
}

function parseMeta(value: unknown): StoredBundleMeta {
  const m = value as Partial<StoredBundleMeta> | null
  if (
    !m ||
    typeof m.etag !== 'string' ||
    typeof m.revision !== 'string' ||
    typeof m.sha256 !== 'string' ||
    !/^[0-9a-f]{64}$/.test(m.sha256) ||
    typeof m.size !== 'number' ||
    typeof m.verifiedAt !== 'string'
  ) {
    throw new Error('meta.json lacks etag, revision, sha256, size or verifiedAt')
  }
  const meta: StoredBundleMeta = {
    etag: m.etag,
    revision: m.revision,
    sha256: m.sha256,
    size: m.size,
    verifiedAt: m.verifiedAt,
  }
  if (typeof m.upstreamEtag === 'string') meta.upstreamEtag = m.upstreamEtag
  return meta
}
