/** Test helpers: hand-made tarballs (including hostile ones) and real keys from node:crypto. */
import { generateKeyPairSync, type KeyObject } from 'node:crypto'
import { gzipSync } from 'node:zlib'
import { type Header, pack } from 'tar-stream'

/** One tar entry as a test writes it: any name, type and declared size. */
export interface RawEntry {
  name: string
  body?: string | Uint8Array
  type?: Header['type']
  linkname?: string
}

/** The tar (not gzipped) of `entries`, names exactly as given. */
export async function tarOf(entries: readonly RawEntry[]): Promise<Buffer> {
  const packer = pack()
  const chunks: Buffer[] = []
  packer.on('data', (chunk: unknown) => {
    chunks.push(chunk as Buffer)
  })
  const ended = new Promise<void>((resolve) => packer.on('end', () => resolve()))
  for (const entry of entries) {
    const body = typeof entry.body === 'string' ? Buffer.from(entry.body) : Buffer.from(entry.body ?? [])
    const type = entry.type ?? 'file'
    await new Promise<void>((resolve, reject) => {
      const header = { name: entry.name, type, linkname: entry.linkname }
      if (type === 'file')
        packer.entry({ ...header, size: body.length }, body, (e) => (e ? reject(e) : resolve()))
      else packer.entry(header, (e) => (e ? reject(e) : resolve()))
    })
  }
  packer.finalize()
  await ended
  return Buffer.concat(chunks)
}

/** The gzipped tar of `entries`. */
export async function tarGzOf(entries: readonly RawEntry[]): Promise<Buffer> {
  return gzipSync(await tarOf(entries))
}

/** A signing key and the matching verification key, both as PEM (or the secret, for HMAC). */
export interface KeyPair {
  privatePem: string
  publicPem: string
  privateKey?: KeyObject
}

/** A fresh key pair for a JWS algorithm family and size. */
export function keyPairFor(algorithm: string): KeyPair {
  if (algorithm.startsWith('HS'))
    return { privatePem: 'top-secret-hmac-key', publicPem: 'top-secret-hmac-key' }
  if (algorithm.startsWith('ES')) {
    const curve = { ES256: 'prime256v1', ES384: 'secp384r1', ES512: 'secp521r1' }[algorithm]!
    return pem(generateKeyPairSync('ec', { namedCurve: curve }))
  }
  return pem(rsaKeys())
}

let rsa: { privateKey: KeyObject; publicKey: KeyObject } | undefined
// One RSA key serves every RS and PS test: generating them is the slow part.
function rsaKeys() {
  rsa ??= generateKeyPairSync('rsa', { modulusLength: 2048 })
  return rsa
}

function pem(keys: { privateKey: KeyObject; publicKey: KeyObject }): KeyPair {
  return {
    privatePem: keys.privateKey.export({ type: 'pkcs8', format: 'pem' }).toString(),
    publicPem: keys.publicKey.export({ type: 'spki', format: 'pem' }).toString(),
    privateKey: keys.privateKey,
  }
}

/** A ustar header block declaring `size` bytes for `name`; the body need not follow. */
export function headerBlock(name: string, size: number): Buffer {
  const block = Buffer.alloc(512)
  const field = (offset: number, length: number, value: string) => block.write(value, offset, length, 'ascii')
  field(0, 100, name)
  field(100, 8, '0000644\0')
  field(108, 8, '0000000\0')
  field(116, 8, '0000000\0')
  field(124, 12, `${size.toString(8).padStart(11, '0')}\0`)
  field(136, 12, '00000000000\0')
  field(148, 8, '        ')
  field(156, 1, '0')
  field(257, 6, 'ustar\0')
  field(263, 2, '00')
  const sum = block.reduce((total, byte) => total + byte, 0)
  field(148, 8, `${sum.toString(8).padStart(6, '0')}\0 `)
  return block
}
