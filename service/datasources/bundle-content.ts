/**
 * What the bundle categories (`git/rego`, `bundle/objstore`, `store2/bundle`) keep of a fetched
 * `.tar.gz` bundle: its data tree, read by core/bundle with the run's byte limit applied to the
 * compressed bytes, to every file and to the inflated total (a gzip bomb stops at its header),
 * entries escaping the root, duplicates and a corrupt archive refused. Policy modules are not
 * loaded (docs/datasources.md, "Bundle categories"): a datasource feeds data, at its id.
 */
import { BundleError, readBundle } from '../../core/bundle/index.js'
import { type FetchContext, type Fetched, RunError } from './types.js'

/**
 * The data of the bundle in `bytes` (read from `source`, named in errors).
 * @throws RunError `size limit: …` or `bundle error: <code>: …`; nothing is kept of a bad bundle.
 */
export async function bundleContent(bytes: Uint8Array, source: string, ctx: FetchContext): Promise<Fetched> {
  if (bytes.byteLength > ctx.maxBytes)
    throw new RunError(`size limit: ${source} is larger than ${ctx.maxBytes} bytes`)
  try {
    const bundle = await readBundle(bytes, { sizeLimitBytes: ctx.maxBytes, maxInflatedBytes: ctx.maxBytes })
    return { content: bundle.data, size: bytes.byteLength }
  } catch (err) {
    if (err instanceof BundleError) throw new RunError(`bundle error: ${source}: ${err.code}: ${err.message}`)
    throw err
  }
}
