/**
 * Reading the key and certificate files that flags and config keys name (signing keys,
 * verification keys, TLS certificates and keys). A mistyped path must say "no such file: PATH"
 * and name the flag or key, not surface later as an OpenSSL decoder error on the path's text.
 */
import { readFileSync, statSync } from 'node:fs'

/** A key or certificate file that cannot be read; the message names the flag or config key. */
export class KeyFileError extends Error {
  override name = 'KeyFileError'
}

/**
 * The text of the file at `path`, named by `where` (`--signing-key`, `relay.agent_auth.cert`).
 * @throws KeyFileError `where: no such file: PATH`, `where: not a file: PATH`, or
 *   `where: cannot read PATH: CODE`.
 * @example readKeyFile('./tls/cert.pem', 'relay.agent_auth.cert')
 */
export function readKeyFile(path: string, where: string): string {
  try {
    if (!statSync(path).isFile()) throw new KeyFileError(`${where}: not a file: ${path}`)
    return readFileSync(path, 'utf8')
  } catch (err) {
    if (err instanceof KeyFileError) throw err
    const code = (err as NodeJS.ErrnoException).code
    if (code === 'ENOENT' || code === 'ENOTDIR') throw new KeyFileError(`${where}: no such file: ${path}`)
    throw new KeyFileError(`${where}: cannot read ${path}: ${code ?? (err as Error).message}`)
  }
}

// What only a path looks like: a folder part or a key file's extension.
const PATH_LIKE = /^(~|\.{1,2})?[\\/]|\.(pem|key|crt|cer|cert|pub|der|p8|jwk|json)$/i

/**
 * The value of a flag that takes "an HMAC secret, or the path of a PEM key", as OPA reads
 * `--signing-key` and `--verification-key`: the file's text when `value` names a file, PEM text
 * given inline as is, else the value as an HMAC secret. A value that cannot be a secret (any
 * value for the RSA, RSA-PSS and ECDSA algorithms; a path-like value for HMAC) but names no file
 * is a mistyped path.
 * @throws KeyFileError `where: no such file: VALUE` for a mistyped path.
 * @example readKeyOrSecret('./keys/private.pem', '--signing-key', 'RS256')
 */
export function readKeyOrSecret(value: string, where: string, algorithm: string): string {
  let exists = false
  try {
    statSync(value)
    exists = true
  } catch {
    // not a path on this machine: a secret, inline PEM or a mistyped path
  }
  if (exists) return readKeyFile(value, where)
  if (value.includes('-----BEGIN')) return value
  const hmac = algorithm.toUpperCase().startsWith('HS')
  if (!hmac || PATH_LIKE.test(value)) throw new KeyFileError(`${where}: no such file: ${value}`)
  return value
}
