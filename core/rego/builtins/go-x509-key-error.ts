/**
 * Go's crypto/x509 errors for a private key whose PEM label promises another encoding than it
 * holds. Go's ParsePKCS1PrivateKey and ParsePKCS8PrivateKey, failing, try the other shapes and name
 * the parser to use instead; OPA's getRSAPrivateKeyFromString returns that error as it is. Node's
 * crypto would say `error:1E08010C:DECODER routines::unsupported` instead.
 */
import { type Asn1, parseDer } from './asn1.js'

/** The private-key encodings Go tells apart. */
type KeyShape = 'pkcs1' | 'pkcs8' | 'ec'

const SEQUENCE = 16
const INTEGER = 2
const OCTET_STRING = 4
const CONTEXT_SPECIFIC = 2

const isInteger = (n: Asn1 | undefined): boolean => n?.tag === INTEGER && n.cls === 0

/** Which encoding the DER bytes have the structure of, as Go's asn1.Unmarshal would accept them. */
function keyShape(der: Uint8Array): KeyShape | undefined {
  let node: Asn1
  try {
    node = parseDer(der)
  } catch {
    return undefined
  }
  if (node.tag !== SEQUENCE || !node.constructed) return undefined
  const [a, b, c] = node.children
  // SEC 1 ECPrivateKey: version, the key as an OCTET STRING, then optional [0] and [1].
  if (isInteger(a) && b?.tag === OCTET_STRING && (c === undefined || c.cls === CONTEXT_SPECIFIC)) return 'ec'
  // PKCS #8 PrivateKeyInfo: version, an AlgorithmIdentifier, the key as an OCTET STRING.
  if (isInteger(a) && b?.tag === SEQUENCE && c?.tag === OCTET_STRING) return 'pkcs8'
  // PKCS #1 RSAPrivateKey: version and eight integers.
  if (node.children.length >= 9 && node.children.slice(0, 9).every(isInteger)) return 'pkcs1'
  return undefined
}

const HINT: Record<KeyShape, string> = {
  pkcs1: 'x509: failed to parse private key (use ParsePKCS1PrivateKey instead for this key format)',
  pkcs8: 'x509: failed to parse private key (use ParsePKCS8PrivateKey instead for this key format)',
  ec: 'x509: failed to parse private key (use ParseECPrivateKey instead for this key format)',
}

/**
 * Go's error when `der`, labelled `label` (`RSA PRIVATE KEY`: PKCS #1, `PRIVATE KEY`: PKCS #8),
 * holds another key encoding; undefined when it is none Go names (then Go's asn1 error, which
 * regent does not reproduce, would follow).
 */
export function goPrivateKeyHint(label: string, der: Uint8Array): string | undefined {
  const shape = keyShape(der)
  if (shape === undefined) return undefined
  // Go tries the EC shape first, then the other of PKCS #1 / #8.
  if (label === 'RSA PRIVATE KEY' && shape !== 'pkcs1') return HINT[shape]
  if (label === 'PRIVATE KEY' && shape !== 'pkcs8') return HINT[shape]
  return undefined
}
