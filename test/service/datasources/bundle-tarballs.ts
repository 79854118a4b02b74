/**
 * Tarballs for the bundle datasource tests: a genuine bundle written by core/bundle, and hostile
 * ones (an entry escaping the root, a corrupt gzip stream, a small file inflating past a limit).
 */
import { gzipSync } from 'node:zlib'
import { pack } from 'tar-stream'
import { bundleFromParts, writeBundle } from '../../../core/bundle/index.js'

/** A bundle with a policy module and `data`. */
export async function goodBundle(data: Record<string, unknown>): Promise<Buffer> {
  const bundle = bundleFromParts({
    modules: { 'authz/policy.rego': 'package authz\n\nallow := true\n' },
    data,
  })
  return Buffer.from(await writeBundle(bundle))
}

/** A gzipped tar of `files` exactly as named (no normalising, so `../x` stays `../x`). */
export async function rawTarball(files: Record<string, string>): Promise<Buffer> {
  const archive = pack()
  const chunks: Buffer[] = []
  archive.on('data', (chunk: unknown) => chunks.push(chunk as Buffer))
  const ended = new Promise<void>((resolve) => archive.on('end', () => resolve()))
  for (const [name, body] of Object.entries(files)) archive.entry({ name }, body)
  archive.finalize()
  await ended
  return gzipSync(Buffer.concat(chunks))
}

/** A bundle whose gzip stream is damaged in the middle (a bit-flipped download, a truncated upload). */
export async function tamperedBundle(): Promise<Buffer> {
  const bytes = await goodBundle({ users: ['mallory'] })
  const cut = Buffer.from(bytes.subarray(0, Math.floor(bytes.length / 2)))
  for (let i = 12; i < cut.length; i += 7) cut[i] = (cut[i] ?? 0) ^ 0xff
  return cut
}
