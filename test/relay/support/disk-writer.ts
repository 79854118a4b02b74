/**
 * Child process for the crash test: saves alternating 4 MiB bundles into a BundleDiskStore as
 * fast as it can, printing `saved N` after each, until it is killed.
 * Usage: node --import tsx test/relay/support/disk-writer.ts DIR
 */
import pino from 'pino'
import { BundleDiskStore } from '../../../plugins/bundle/disk-store.js'

/** The bytes saved as revision `n`: 4 MiB whose content depends on n's parity. */
export function payloadOf(n: number): Uint8Array {
  return new Uint8Array(4 * 1024 * 1024).fill(n % 2 === 0 ? 0xaa : 0x55)
}

const dir = process.argv[2]
if (dir) {
  const store = new BundleDiskStore(dir, pino({ level: 'silent' }))
  for (let n = 0; ; n++) {
    await store.save('bundle', 'authz', payloadOf(n), {
      etag: `"${n}"`,
      revision: String(n),
      verifiedAt: new Date().toISOString(),
    })
    process.stdout.write(`saved ${n}\n`)
  }
}
