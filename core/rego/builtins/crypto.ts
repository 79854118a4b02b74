/**
 * Crypto built-ins (node:crypto): digests, HMACs, constant-time comparison, X.509 certificates,
 * certificate requests, key pairs and private keys (as JWKs).
 */
import {
  createHash,
  createHmac,
  createPrivateKey,
  type KeyObject,
  timingSafeEqual,
  type X509Certificate,
} from 'node:crypto'
import { t } from '../types/index.js'
import type { Value } from '../values/index.js'
import { fromJS, ObjectValue } from '../values/index.js'
import type { BuiltinContext } from './context.js'
import { defineBuiltin } from './define.js'
import { decodeBase64 } from './encoding.js'
import { BuiltinError } from './errors.js'
import { goPrivateKeyHint } from './go-x509-key-error.js'
import { objectOperand, stringOperand } from './operands.js'
import {
  certificateRequestValue,
  certificateValue,
  csrDer,
  derFromOperand,
  parseCertificate,
  pemBlocks,
  splitCertificates,
} from './x509.js'
import { type VerifyOptions, verifyChain, verifyOptions } from './x509-verify.js'

const str = (name: string, description: string) => t.named(name, t.string, description)

function digest(name: string, algorithm: string) {
  return defineBuiltin({
    name,
    category: 'crypto',
    description: `Returns a string representing the input string hashed with the ${algorithm.toUpperCase()} function`,
    args: [str('x', 'input string')],
    result: str('y', `${algorithm.toUpperCase()}-hash of \`x\``),
    impl: (_ctx, [x]) => createHash(algorithm).update(stringOperand(x, 1), 'utf8').digest('hex'),
  })
}

function hmac(name: string, algorithm: string) {
  return defineBuiltin({
    name,
    category: 'crypto',
    description: `Returns a string representing the ${algorithm.toUpperCase()} HMAC of the input message using the input key.`,
    args: [str('x', 'input string'), str('key', 'key to use')],
    result: str('y', `${algorithm.toUpperCase()}-HMAC of \`x\``),
    impl: (_ctx, [x, k]) =>
      createHmac(algorithm, Buffer.from(stringOperand(k, 2), 'utf8'))
        .update(stringOperand(x, 1), 'utf8')
        .digest('hex'),
  })
}

export const md5 = digest('crypto.md5', 'md5')
export const sha1 = digest('crypto.sha1', 'sha1')
export const sha256 = digest('crypto.sha256', 'sha256')
export const hmacMd5 = hmac('crypto.hmac.md5', 'md5')
export const hmacSha1 = hmac('crypto.hmac.sha1', 'sha1')
export const hmacSha256 = hmac('crypto.hmac.sha256', 'sha256')
export const hmacSha512 = hmac('crypto.hmac.sha512', 'sha512')

export const hmacEqual = defineBuiltin({
  name: 'crypto.hmac.equal',
  category: 'crypto',
  description:
    'Returns a boolean representing the result of comparing two MACs for equality without leaking timing information.',
  args: [str('mac1', 'mac1 to compare'), str('mac2', 'mac2 to compare')],
  result: t.named('result', t.boolean, '`true` if the MACs are equals, `false` otherwise'),
  impl: (_ctx, [a, b]) => {
    const x = Buffer.from(stringOperand(a, 1), 'utf8')
    const y = Buffer.from(stringOperand(b, 2), 'utf8')
    return x.length === y.length && timingSafeEqual(x, y)
  },
})

/** Parsed certificates from PEM / base64 PEM / base64 DER text. */
function certificates(text: string): Array<{ der: Buffer; cert: X509Certificate }> {
  const ders = derFromOperand(text).flatMap(splitCertificates)
  return ders.map((der) => ({ der, cert: parseCertificate(der) }))
}

export const parseCertificates = defineBuiltin({
  name: 'crypto.x509.parse_certificates',
  category: 'crypto',
  description:
    'Returns zero or more certificates from the given encoded string containing DER certificate data. If the input is empty, the function will return null. The input string should be a list of one or more concatenated PEM blocks. The whole input of concatenated PEM blocks can optionally be Base64 encoded.',
  args: [
    str(
      'certs',
      'base64 encoded DER or PEM data containing one or more certificates or a PEM string of one or more certificates',
    ),
  ],
  result: t.named(
    'output',
    t.array(t.object(t.string, t.any)),
    'parsed X.509 certificates represented as objects',
  ),
  impl: (_ctx, [c]) => {
    const text = stringOperand(c, 1)
    if (text === '') return null
    return certificates(text).map(({ der, cert }) => certificateValue(der, cert))
  },
})

function parseAndVerify(ctx: BuiltinContext, text: string, options?: ObjectValue): Value {
  let chain: Array<{ der: Buffer; cert: X509Certificate }>
  try {
    // Input is root first, leaf last; Go's Verify reports the chain leaf first.
    chain = certificates(text).reverse()
  } catch {
    return [false, []]
  }
  // OPA reads the options only once the certificates parse; a bad option is an error, not `false`.
  const opts: VerifyOptions = options ? verifyOptions(options) : { keyUsages: [] }
  const now = opts.nowMs ?? Number(ctx.timeNs / 1_000_000n)
  if (!verifyChain(chain, now, opts)) return [false, []]
  return [true, chain.map(({ der, cert }) => certificateValue(der, cert))]
}

export const parseAndVerifyCertificates = defineBuiltin({
  name: 'crypto.x509.parse_and_verify_certificates',
  category: 'crypto',
  description:
    'Returns one or more certificates from the given string containing PEM or base64 encoded DER certificates after verifying the supplied certificates form a complete certificate chain back to a trusted root. The first certificate is treated as the root and the last is treated as the leaf, with all others being treated as intermediates.',
  args: [
    str(
      'certs',
      'base64 encoded DER or PEM data containing two or more certificates where the first is a root CA, the last is a leaf certificate, and all others are intermediate CAs',
    ),
  ],
  result: t.named(
    'output',
    t.tuple(t.boolean, t.array(t.object(t.string, t.any))),
    'array of `[valid, certs]`: if the input certificate chain could be verified then `valid` is `true` and `certs` is an array of X.509 certificates represented as objects; if the input certificate chain could not be verified then `valid` is `false` and `certs` is `[]`',
  ),
  impl: (ctx, [c]) => parseAndVerify(ctx, stringOperand(c, 1)),
})

export const parseAndVerifyCertificatesWithOptions = defineBuiltin({
  name: 'crypto.x509.parse_and_verify_certificates_with_options',
  category: 'crypto',
  description:
    'Returns one or more certificates from the given string containing PEM or base64 encoded DER certificates after verifying the supplied certificates form a complete certificate chain back to a trusted root. A config option passed as the second argument can be used to configure the validation options used.',
  args: [
    str(
      'certs',
      'base64 encoded DER or PEM data containing two or more certificates where the first is a root CA, the last is a leaf certificate, and all others are intermediate CAs',
    ),
    t.named(
      'options',
      t.object(t.string, t.any),
      'object containing extra configs to verify the validity of certificates',
    ),
  ],
  result: t.named(
    'output',
    t.tuple(t.boolean, t.array(t.object(t.string, t.any))),
    'array of `[valid, certs]`',
  ),
  impl: (ctx, [c, o]) => parseAndVerify(ctx, stringOperand(c, 1), objectOperand(o, 2)),
})

export const parseCertificateRequest = defineBuiltin({
  name: 'crypto.x509.parse_certificate_request',
  category: 'crypto',
  description:
    'Returns a PKCS #10 certificate signing request from the given PEM-encoded PKCS#10 certificate signing request.',
  args: [
    str('csr', 'base64 string containing either a PEM encoded or DER CSR or a string containing a PEM CSR'),
  ],
  result: t.named('output', t.object(t.string, t.any), 'X.509 CSR represented as an object'),
  impl: (_ctx, [c]) => {
    return certificateRequestValue(csrDer(stringOperand(c, 1)))
  },
})

/** A private key from PEM or base64-of-PEM text. */
function privateKeyFromText(text: string): KeyObject {
  const pem = text.startsWith('-----BEGIN') ? text : decodeBase64(text, false, true).toString('utf8')
  try {
    return createPrivateKey(pem)
  } catch (err) {
    throw new BuiltinError(`failed to parse private key: ${err instanceof Error ? err.message : String(err)}`)
  }
}

/**
 * OPA's getRSAPrivateKeyFromString: the first PEM block of the text (or of its base64 decoding),
 * read as PKCS #1 (`RSA PRIVATE KEY`) or PKCS #8 (`PRIVATE KEY`, of any key type), with OPA's
 * messages for a missing block and for another block type.
 */
function rsaPrivateKeyFromText(text: string): KeyObject {
  const pem = text.startsWith('-----BEGIN') ? text : decodeBase64(text, false, true).toString('latin1')
  const block = /-----BEGIN ([^-\n]*)-----[\s\S]*?-----END \1-----/.exec(pem)
  if (!block) throw new BuiltinError('failed to parse PEM block containing the key')
  if (block[1] !== 'RSA PRIVATE KEY' && block[1] !== 'PRIVATE KEY')
    throw new BuiltinError(`PEM block type is '${block[1]}', expected RSA PRIVATE KEY or PRIVATE KEY`)
  // A key of another encoding than the label says: Go's x509 names the parser to use instead.
  const body = block[0].replace(/-----[^-\n]*-----/g, '').replace(/\s+/g, '')
  const hint = goPrivateKeyHint(block[1], Buffer.from(body, 'base64'))
  if (hint !== undefined) throw new BuiltinError(hint)
  return privateKeyFromText(block[0])
}

/** A DER private key in any of the encodings Go's tls package tries (PKCS #1, PKCS #8, SEC 1). */
function derPrivateKey(der: Buffer): KeyObject {
  for (const type of ['pkcs1', 'pkcs8', 'sec1'] as const) {
    try {
      return createPrivateKey({ key: der, format: 'der', type })
    } catch {
      // Try the next encoding.
    }
  }
  throw new BuiltinError('tls: failed to parse private key')
}

function jwk(key: KeyObject): Value {
  return fromJS(key.export({ format: 'jwk' }))
}

export const parseRsaPrivateKey = defineBuiltin({
  name: 'crypto.x509.parse_rsa_private_key',
  category: 'crypto',
  description: 'Returns a JWK for signing a JWT from the given PEM-encoded RSA private key.',
  args: [str('pem', 'base64 string containing a PEM encoded RSA private key')],
  result: t.named('output', t.object(t.string, t.any), 'JWK as an object'),
  impl: (_ctx, [p]) => jwk(rsaPrivateKeyFromText(stringOperand(p, 1))),
})

export const parsePrivateKeys = defineBuiltin({
  name: 'crypto.parse_private_keys',
  category: 'crypto',
  description:
    'Returns zero or more private keys from the given encoded string containing DER certificate data. If the input is empty, the function will return null. The input string should be a list of one or more concatenated PEM blocks. The whole input of concatenated PEM blocks can optionally be Base64 encoded.',
  args: [
    str(
      'keys',
      'PEM encoded data containing one or more private keys as concatenated blocks. Optionally Base64 encoded.',
    ),
  ],
  result: t.named(
    'output',
    t.array(t.object(t.string, t.any)),
    'parsed private keys represented as objects (JWKs)',
  ),
  impl: (_ctx, [k]) => {
    const text = stringOperand(k, 1)
    if (text === '') return null
    let pem = text
    if (!text.includes('-----BEGIN')) {
      try {
        pem = decodeBase64(text, false, true).toString('utf8')
      } catch {
        return []
      }
    }
    const keys: Value[] = []
    // OPA reads PKCS #1, PKCS #8 and SEC 1 blocks only: other blocks (certificates, ENCRYPTED or
    // OPENSSH private keys) are skipped, not errors.
    for (const m of pem.matchAll(/-----BEGIN ((?:RSA |EC )?PRIVATE KEY)-----[\s\S]*?-----END \1-----/g)) {
      keys.push(jwk(privateKeyFromText(m[0])))
    }
    return keys
  },
})

export const parseKeypair = defineBuiltin({
  name: 'crypto.x509.parse_keypair',
  category: 'crypto',
  description: 'Returns a valid key pair',
  args: [
    str('cert', 'string containing PEM or base64 encoded DER certificates'),
    str('pem', 'string containing PEM or base64 encoded DER keys'),
  ],
  result: t.named(
    'output',
    t.object(t.string, t.any),
    'if key pair is valid, returns the tls.certificate(https://pkg.go.dev/crypto/tls#Certificate) as an object. If the key pair is invalid, nil and an error are returned.',
  ),
  impl: (_ctx, [c, k]) => {
    const certText = stringOperand(c, 1)
    // OPA checks the key with operand position 1 too.
    const keyText = stringOperand(k, 1)
    const chain = certificates(certText)
    const leaf = chain[0]
    if (!leaf) throw new BuiltinError('tls: failed to find any PEM data in certificate input')
    const keyBytes = keyText.startsWith('-----BEGIN')
      ? Buffer.from(keyText, 'utf8')
      : decodeBase64(keyText, false, true)
    // Decoded bytes that are not PEM are a DER key: OPA wraps them in a PRIVATE KEY block, which
    // Go's tls.X509KeyPair reads as PKCS #1, PKCS #8 or SEC 1, whatever the label says.
    let key: KeyObject
    if (keyBytes.toString('latin1', 0, 10) === '-----BEGIN') {
      const keyPem = keyBytes.toString('utf8')
      if (pemBlocks(keyPem).length === 0)
        throw new BuiltinError('tls: failed to find any PEM data in key input')
      key = privateKeyFromText(keyPem)
    } else key = derPrivateKey(keyBytes)
    if (!leaf.cert.checkPrivateKey(key)) throw new BuiltinError('tls: private key does not match public key')
    return new ObjectValue()
      .set(
        'Certificate',
        chain.map(({ der }) => der.toString('base64')),
      )
      .set('PrivateKey', jwk(key))
      .set('Leaf', certificateValue(leaf.der, leaf.cert))
  },
})

/** The crypto built-ins. */
export const CRYPTO = [
  md5,
  sha1,
  sha256,
  hmacMd5,
  hmacSha1,
  hmacSha256,
  hmacSha512,
  hmacEqual,
  parseCertificates,
  parseAndVerifyCertificates,
  parseAndVerifyCertificatesWithOptions,
  parseCertificateRequest,
  parseRsaPrivateKey,
  parsePrivateKeys,
  parseKeypair,
] as const
