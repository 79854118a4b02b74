/**
 * Joining a large response's chunks without holding the event loop: Buffer.concat copies tens of
 * MB in one call (about 50 ms of one core for 50 MB, far more on a busy machine). Here the chunks
 * are copied into one buffer a few MiB at a time, with the event loop given back in between. The
 * buffer owns its memory (allocUnsafeSlow), so it can move to a worker thread without a copy.
 */

/** Bytes copied between two yields. */
const SLICE_BYTES = 4 * 1024 * 1024

const nextTurn = () => new Promise<void>((resolve) => setImmediate(resolve))

/** The chunks (`size` bytes in all) as one buffer of its own. */
export async function concatYielding(chunks: readonly Uint8Array[], size: number): Promise<Buffer> {
  const out = Buffer.allocUnsafeSlow(size)
  let at = 0
  let sinceYield = 0
  for (const chunk of chunks) {
    out.set(chunk, at)
    at += chunk.byteLength
    sinceYield += chunk.byteLength
    if (sinceYield >= SLICE_BYTES) {
      sinceYield = 0
      await nextTurn()
    }
  }
  return at === size ? out : out.subarray(0, at)
}
