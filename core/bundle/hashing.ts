/**
 * File digests for `.signatures.json`, as OPA computes them: structured files (basename
 * `data.json`, `data.yaml`, `.manifest`, `signatures.json`) are hashed over their canonical JSON,
 * everything else (modules, `data.yml` — a real OPA quirk —, wasm, plans, other files) over raw
 * bytes.
 */
import { createHash } from 'node:crypto'
import { posix } from 'node:path'
import { writeCanonicalJson, writeCanonicalValue } from './canonical-json.js'
import { parseYamlData } from './data.js'
import { bundleError } from './errors.js'

/** OPA's hash algorithm names and node:crypto's names for them. */
export const HASH_ALGORITHMS: Readonly<Record<string, string>> = {
  MD5: 'md5',
  'SHA-1': 'sha1',
  'SHA-224': 'sha224',
  'SHA-256': 'sha256',
  'SHA-384': 'sha384',
  'SHA-512': 'sha512',
  'SHA-512-224': 'sha512-224',
  'SHA-512-256': 'sha512-256',
}

/** The algorithm `opa build` and `opa sign` use. */
export const DEFAULT_HASH_ALGORITHM = 'SHA-256'

const STRUCTURED = new Set(['data.json', 'data.yaml', '.manifest', 'signatures.json', '.signatures.json'])

/** Whether the file at `path` is hashed over canonical JSON rather than raw bytes. */
export function isStructured(path: string): boolean {
  return STRUCTURED.has(posix.basename(path))
}

/**
 * The digest of one bundle file under an OPA algorithm name.
 * @throws BundleError `bundle_hash_algorithm` for an unknown algorithm, `bundle_data_invalid`
 *   when a structured file does not parse (the message names the file).
 * @example fileDigest('a/data.json', bytes, 'SHA-256').toString('hex')
 */
export function fileDigest(path: string, raw: Uint8Array, algorithm: string): Buffer {
  const nodeName = HASH_ALGORITHMS[algorithm]
  if (!nodeName) {
    throw bundleError(
      'bundle_hash_algorithm',
      `file ${path}: unsupported hash algorithm ${JSON.stringify(algorithm)} (use one of ${Object.keys(HASH_ALGORITHMS).join(', ')})`,
    )
  }
  const hash = createHash(nodeName)
  if (!isStructured(path)) return hash.update(raw).digest()
  const sink = (chunk: Uint8Array) => {
    hash.update(chunk)
  }
  if (path.endsWith('.yaml')) {
    const value = parseYamlData(new TextDecoder().decode(raw), `data file ${path}`, { exactIntegers: true })
    writeCanonicalValue(value, sink, `data file ${path}`)
  } else writeCanonicalJson(raw, sink, `file ${path}`)
  return hash.digest()
}
