/**
 * Writing entries as a gzipped tarball, streaming through tar-stream and node:zlib so only the
 * compressed output is accumulated. Names are written with a leading `/` and a fixed mtime, as
 * `opa build` writes them: the same bundle always gives the same bytes (stable ETags).
 */
import { Writable } from 'node:stream'
import { pipeline } from 'node:stream/promises'
import { constants, createGzip } from 'node:zlib'
import { pack } from 'tar-stream'
import { bundleError, reason } from './errors.js'
import type { BundleEntry } from './types.js'

const EPOCH = new Date(0)

/** The gzipped tar of `entries`, in the order given. */
export async function writeTarball(entries: readonly BundleEntry[]): Promise<Uint8Array> {
  const packer = pack()
  const chunks: Buffer[] = []
  let size = 0
  const sink = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      chunks.push(chunk)
      size += chunk.byteLength
      callback()
    },
  })
  const done = pipeline(packer, createGzip({ level: constants.Z_DEFAULT_COMPRESSION }), sink)
  try {
    for (const entry of entries) {
      await new Promise<void>((resolve, reject) => {
        packer.entry(
          { name: `/${entry.path}`, size: entry.raw.byteLength, mode: 0o644, mtime: EPOCH, type: 'file' },
          entry.raw,
          (err) => (err ? reject(err) : resolve()),
        )
      })
    }
    packer.finalize()
    await done
  } catch (err) {
    packer.destroy()
    throw bundleError('bundle_archive_invalid', `cannot write bundle tarball: ${reason(err)}`, err)
  }
  return Buffer.concat(chunks, size)
}
