/**
 * Base64 decoding as Go's encoding/base64 does it (StdEncoding, URLEncoding and their Raw forms),
 * quantum by quantum: CR and LF are skipped, and a failure names the byte offset Go names
 * (`illegal base64 data at input byte N`), padding mistakes included.
 */
import { BuiltinError } from './errors.js'

const STD_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/'
const URL_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_'

function decodeMap(alphabet: string): Int16Array {
  const map = new Int16Array(256).fill(-1)
  for (let i = 0; i < alphabet.length; i++) map[alphabet.charCodeAt(i)] = i
  return map
}

const STD_MAP = decodeMap(STD_ALPHABET)
const URL_MAP = decodeMap(URL_ALPHABET)
const PAD = 0x3d
const isNewline = (c: number | undefined) => c === 0x0a || c === 0x0d

const corrupt = (at: number) => new BuiltinError(`illegal base64 data at input byte ${at}`)

/** Decodes `text` (its UTF-8 bytes) as Go does; `padded` is false for the Raw encodings. */
export function decodeGoBase64(text: string, url: boolean, padded: boolean): Buffer {
  const src = Buffer.from(text, 'utf8')
  const map = url ? URL_MAP : STD_MAP
  const out: number[] = []
  let si = 0
  while (si < src.length) {
    const quantum = new Uint8Array(4)
    let length = 4
    let trailing: number | undefined
    for (let j = 0; j < 4; j++) {
      if (si === src.length) {
        if (j === 0) return Buffer.from(out)
        if (j === 1 || padded) throw corrupt(si - j)
        length = j
        break
      }
      const c = src[si] as number
      si++
      const d = map[c] as number
      if (d >= 0) {
        quantum[j] = d
        continue
      }
      if (isNewline(c)) {
        j--
        continue
      }
      if (!padded || c !== PAD) throw corrupt(si - 1)
      // Padding: only after two or three symbols, "==" after two.
      if (j < 2) throw corrupt(si - 1)
      if (j === 2) {
        while (si < src.length && isNewline(src[si])) si++
        if (si === src.length) throw corrupt(src.length)
        if (src[si] !== PAD) throw corrupt(si - 1)
        si++
      }
      while (si < src.length && isNewline(src[si])) si++
      if (si < src.length) trailing = si
      length = j
      break
    }
    const [q0 = 0, q1 = 0, q2 = 0, q3 = 0] = quantum
    const value = (q0 << 18) | (q1 << 12) | (q2 << 6) | q3
    const bytes = [(value >> 16) & 0xff, (value >> 8) & 0xff, value & 0xff]
    out.push(...bytes.slice(0, length - 1))
    if (trailing !== undefined) throw corrupt(trailing)
  }
  return Buffer.from(out)
}
