/**
 * X.509 certificates and requests as OPA returns them: the JSON of Go's `x509.Certificate` (the
 * fields policies use: Subject, Issuer, NotBefore, NotAfter, DNSNames, URIStrings, IsCA, ...).
 */
import { X509Certificate } from 'node:crypto'
import { isIP } from 'node:net'
import type { Value } from '../values/index.js'
import { numberFromBigInt, ObjectValue } from '../values/index.js'
import { type Asn1, oidText, parseDer, readDer, stringValue } from './asn1.js'
import { decodeBase64 } from './encoding.js'
import { BuiltinError } from './errors.js'
import { extKeyUsages } from './x509-verify.js'

const NAME_FIELDS: Record<string, string> = {
  '2.5.4.6': 'Country',
  '2.5.4.10': 'Organization',
  '2.5.4.11': 'OrganizationalUnit',
  '2.5.4.7': 'Locality',
  '2.5.4.8': 'Province',
  '2.5.4.9': 'StreetAddress',
  '2.5.4.17': 'PostalCode',
}

/** Go's `pkix.Name` as JSON, from a DER Name (SEQUENCE OF SET OF AttributeTypeAndValue). */
export function nameValue(name: Asn1): ObjectValue {
  const lists: Record<string, string[]> = {}
  const names: Value[] = []
  let commonName = ''
  let serial = ''
  for (const rdn of name.children) {
    for (const atv of rdn.children) {
      const [oidNode, valueNode] = atv.children
      if (!oidNode || !valueNode) continue
      const oid = oidText(oidNode.body)
      const text = stringValue(valueNode)
      names.push(new ObjectValue().set('Type', oid.split('.').map(Number)).set('Value', text))
      if (oid === '2.5.4.3') commonName = text
      else if (oid === '2.5.4.5') serial = text
      else {
        const field = NAME_FIELDS[oid]
        if (field) {
          lists[field] ??= []
          lists[field].push(text)
        }
      }
    }
  }
  const out = new ObjectValue()
  for (const field of [
    'Country',
    'Organization',
    'OrganizationalUnit',
    'Locality',
    'Province',
    'StreetAddress',
    'PostalCode',
  ]) {
    out.set(field, lists[field] ?? null)
  }
  return out
    .set('SerialNumber', serial)
    .set('CommonName', commonName)
    .set('Names', names)
    .set('ExtraNames', null)
}

/** Splits PEM text into its blocks' DER bytes (type filter optional). */
export function pemBlocks(text: string, type?: string): Buffer[] {
  const out: Buffer[] = []
  const re = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g
  for (const m of text.matchAll(re)) {
    if (type && m[1] !== type) continue
    out.push(Buffer.from((m[2] as string).replace(/[^A-Za-z0-9+/=]/g, ''), 'base64'))
  }
  return out
}

/**
 * The DER of each leading CERTIFICATE block, as OPA's getX509CertsFromPem reads them: the first
 * block of another type is an error.
 */
function certificateBlocks(text: string): Buffer[] {
  const out: Buffer[] = []
  const re = /-----BEGIN ([A-Z0-9 ]+)-----([\s\S]*?)-----END \1-----/g
  for (const m of text.matchAll(re)) {
    if (m[1] !== 'CERTIFICATE') throw new BuiltinError(`PEM block type is '${m[1]}', expected CERTIFICATE`)
    out.push(Buffer.from((m[2] as string).replace(/[^A-Za-z0-9+/=]/g, ''), 'base64'))
  }
  return out
}

/**
 * The DER blocks of a certificate operand: PEM, base64 of PEM, or base64 of DER (OPA's
 * `getX509CertsFromString`).
 */
export function derFromOperand(text: string): Buffer[] {
  if (text.startsWith('-----BEGIN')) return certificateBlocks(text)
  const decoded = decodeBase64(text, false, true)
  if (decoded.subarray(0, 10).toString('latin1') === '-----BEGIN')
    return certificateBlocks(decoded.toString('latin1'))
  return [decoded]
}

/**
 * The DER of a certificate signing request, as OPA's builtinCryptoX509ParseCertificateRequest
 * finds it: text not starting with the CSR's PEM header is base64 (of PEM or DER); a PEM block
 * of another type is refused.
 */
export function csrDer(text: string): Buffer {
  const bytes = text.startsWith('-----BEGIN CERTIFICATE REQUEST-----')
    ? Buffer.from(text, 'latin1')
    : decodeBase64(text, false, true)
  const latin = bytes.toString('latin1')
  const block = /-----BEGIN ([^\r\n]*)-----\r?\n([\s\S]*?)-----END \1-----/.exec(latin)
  if (!block) return bytes
  if (block[1] !== 'CERTIFICATE REQUEST')
    throw new BuiltinError('invalid PEM-encoded certificate signing request')
  return Buffer.from((block[2] as string).replace(/[^A-Za-z0-9+/=]/g, ''), 'base64')
}

function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z')
}

/** Splits concatenated DER certificates (Go's ParseCertificates). */
export function splitCertificates(der: Buffer): Buffer[] {
  const out: Buffer[] = []
  let offset = 0
  while (offset < der.length) {
    try {
      const [node, next] = readDer(der, offset)
      out.push(Buffer.from(node.raw))
      offset = next
    } catch {
      throw new BuiltinError('x509: malformed certificate')
    }
  }
  return out
}

/** Parses one DER certificate with node:crypto; throws Go's error for malformed input. */
export function parseCertificate(der: Buffer): X509Certificate {
  try {
    return new X509Certificate(der)
  } catch {
    throw new BuiltinError('x509: malformed certificate')
  }
}

/** Subject alternative names from node's `subjectAltName` text. */
function altNames(cert: X509Certificate): { dns: string[]; email: string[]; ip: string[]; uri: string[] } {
  const out = { dns: [] as string[], email: [] as string[], ip: [] as string[], uri: [] as string[] }
  for (const part of (cert.subjectAltName ?? '').split(/, (?=[A-Za-z ]+:)/)) {
    const i = part.indexOf(':')
    if (i < 0) continue
    const kind = part.slice(0, i)
    const value = part.slice(i + 1).replace(/^"|"$/g, '')
    if (kind === 'DNS') out.dns.push(value)
    else if (kind === 'email') out.email.push(value)
    else if (kind === 'IP Address' && isIP(value)) out.ip.push(value)
    else if (kind === 'URI') out.uri.push(value)
  }
  return out
}

/** Go's `x509.PublicKeyAlgorithm` numbers (RSA-PSS keys are unknown to Go's parser: 0). */
const PUBLIC_KEY_ALGORITHMS: Record<string, number> = { rsa: 1, dsa: 2, ec: 3, ed25519: 4 }

/** Go's `x509.Certificate` JSON (plus OPA's `URIStrings`) for one certificate. */
export function certificateValue(der: Buffer, cert: X509Certificate): ObjectValue {
  const root = parseDer(der)
  const tbs = root.children[0]
  const fields = tbs?.children ?? []
  // tbsCertificate: [version] serial signature issuer validity subject spki ...
  const offset = fields[0]?.cls === 2 ? 1 : 0
  const issuer = fields[offset + 2]
  const subject = fields[offset + 4]
  const alt = altNames(cert)
  const list = (xs: string[]) => (xs.length ? xs : null)
  const out = new ObjectValue()
  out.set('Raw', der.toString('base64'))
  out.set('RawTBSCertificate', tbs ? Buffer.from(tbs.raw).toString('base64') : null)
  out.set('Version', offset === 1 ? Number((fields[0]?.children[0]?.body[0] ?? 0) + 1) : 1)
  out.set('SerialNumber', numberFromBigInt(BigInt(`0x${cert.serialNumber}`)))
  out.set('Issuer', issuer ? nameValue(issuer) : null)
  out.set('Subject', subject ? nameValue(subject) : null)
  out.set('NotBefore', rfc3339(new Date(cert.validFrom)))
  out.set('NotAfter', rfc3339(new Date(cert.validTo)))
  out.set('IsCA', cert.ca)
  out.set('DNSNames', list(alt.dns))
  out.set('EmailAddresses', list(alt.email))
  out.set('IPAddresses', list(alt.ip))
  out.set('URIs', list(alt.uri))
  out.set('URIStrings', list(alt.uri))
  out.set('PublicKeyAlgorithm', PUBLIC_KEY_ALGORITHMS[cert.publicKey.asymmetricKeyType ?? ''] ?? 0)
  // Go's x509.ExtKeyUsage numbers; OIDs Go has no name for go to UnknownExtKeyUsage as int arrays.
  const usages = extKeyUsages(cert)
  out.set('ExtKeyUsage', usages.known.length ? usages.known : null)
  out.set(
    'UnknownExtKeyUsage',
    usages.unknown.length ? usages.unknown.map((oid) => oid.split('.').map(Number)) : null,
  )
  return out
}

/** Go's `x509.CertificateRequest` JSON subset for a DER PKCS #10 request. */
export function certificateRequestValue(der: Buffer): ObjectValue {
  const root = parseDer(der)
  const info = root.children[0]
  const subject = info?.children[1]
  if (!info || !subject || info.children.length < 3)
    throw new BuiltinError('asn1: structure error: not a certificate request')
  return new ObjectValue()
    .set('Raw', der.toString('base64'))
    .set('RawTBSCertificateRequest', Buffer.from(info.raw).toString('base64'))
    .set('Version', Number(info.children[0]?.body[0] ?? 0))
    .set('Subject', nameValue(subject))
}
