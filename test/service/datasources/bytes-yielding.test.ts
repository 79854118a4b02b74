/** concatYielding joins chunks exactly (what Buffer.concat gives) into a buffer that owns its memory. */
import { describe, expect, it } from 'vitest'
import { concatYielding } from '../../../service/datasources/bytes-yielding.js'

describe('concatYielding', () => {
  it('gives the bytes Buffer.concat gives, in a buffer of its own that can move to a worker', async () => {
    const chunks = Array.from({ length: 200 }, (_, i) => Buffer.alloc(64 * 1024 + i, i % 251))
    const size = chunks.reduce((sum, c) => sum + c.byteLength, 0)
    const joined = await concatYielding(chunks, size)
    expect(joined.equals(Buffer.concat(chunks))).toBe(true)
    expect(joined.byteOffset).toBe(0)
    expect(joined.buffer.byteLength).toBe(size)
    expect((await concatYielding([], 0)).byteLength).toBe(0)
  })
})
