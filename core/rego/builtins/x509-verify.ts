/**
 * Certificate chain verification as OPA's crypto.x509.parse_and_verify_certificates[_with_options]
 * does it through Go's `Certificate.Verify`: validity at a given time, issuer signatures, CA flags,
 * an optional host name, and the extended key usages the chain must allow (Go's default: server
 * authentication). Also the option object's checks, with OPA's messages.
 */
import type { X509Certificate } from 'node:crypto'
import type { ObjectValue, Value } from '../values/index.js'
import { isSet, typeName } from '../values/index.js'
import { BuiltinError } from './errors.js'

/** Go's `x509.ExtKeyUsage` values: the option name OPA accepts, the OID, Go's number. */
const EXT_KEY_USAGES: ReadonlyArray<readonly [name: string, oid: string, id: number]> = [
  ['KeyUsageAny', '2.5.29.37.0', 0],
  ['KeyUsageServerAuth', '1.3.6.1.5.5.7.3.1', 1],
  ['KeyUsageClientAuth', '1.3.6.1.5.5.7.3.2', 2],
  ['KeyUsageCodeSigning', '1.3.6.1.5.5.7.3.3', 3],
  ['KeyUsageEmailProtection', '1.3.6.1.5.5.7.3.4', 4],
  ['KeyUsageIPSECEndSystem', '1.3.6.1.5.5.7.3.5', 5],
  ['KeyUsageIPSECTunnel', '1.3.6.1.5.5.7.3.6', 6],
  ['KeyUsageIPSECUser', '1.3.6.1.5.5.7.3.7', 7],
  ['KeyUsageTimeStamping', '1.3.6.1.5.5.7.3.8', 8],
  ['KeyUsageOCSPSigning', '1.3.6.1.5.5.7.3.9', 9],
  ['KeyUsageMicrosoftServerGatedCrypto', '1.3.6.1.4.1.311.10.3.3', 10],
  ['KeyUsageNetscapeServerGatedCrypto', '2.16.840.1.113730.4.1', 11],
  ['KeyUsageMicrosoftCommercialCodeSigning', '1.3.6.1.4.1.311.2.1.22', 12],
  ['KeyUsageMicrosoftKernelCodeSigning', '1.3.6.1.4.1.311.61.1.1', 13],
]
const USAGE_BY_NAME = new Map(EXT_KEY_USAGES.map(([name, , id]) => [name, id]))
const USAGE_BY_OID = new Map(EXT_KEY_USAGES.map(([, oid, id]) => [oid, id]))
const ANY_USAGE = 0
const SERVER_AUTH = 1

/** A certificate's extended key usages: Go's known ones (numbers) and the other OIDs. */
export function extKeyUsages(cert: X509Certificate): { known: number[]; unknown: string[] } {
  const known: number[] = []
  const unknown: string[] = []
  for (const oid of cert.keyUsage ?? []) {
    const id = USAGE_BY_OID.get(oid)
    if (id === undefined) unknown.push(oid)
    else known.push(id)
  }
  return { known, unknown }
}

/** What `Verify` is asked to check besides the signatures. */
export interface VerifyOptions {
  /** Milliseconds since the epoch; undefined for the evaluation's time. */
  nowMs?: number
  dnsName?: string
  /** Go's ExtKeyUsage numbers; empty means server authentication. */
  keyUsages: number[]
}

/** An int64 number as a bigint, or undefined for a number that is not one. */
function int64(v: Value): bigint | undefined {
  let n: bigint
  try {
    n = BigInt(typeof v === 'bigint' || typeof v === 'number' ? v : String(v))
  } catch {
    return undefined
  }
  return n >= -(2n ** 63n) && n < 2n ** 63n ? n : undefined
}

// OPA trims double quotes around names (strings.Trim(s, `"`)).
const trimQuotes = (s: string) => s.replace(/^"+|"+$/g, '')

/** The option object of parse_and_verify_certificates_with_options, checked as OPA's extractVerifyOpts. */
export function verifyOptions(options: ObjectValue): VerifyOptions {
  const out: VerifyOptions = { keyUsages: [] }
  for (const [key, value] of options.entries()) {
    if (typeof key !== 'string') continue
    switch (key) {
      case 'DNSName':
        if (typeof value !== 'string') throw new BuiltinError("'DNSName' should be a string")
        out.dnsName = trimQuotes(value)
        break
      case 'CurrentTime': {
        if (typeName(value) !== 'number') throw new BuiltinError("'CurrentTime' should be a number")
        const ns = int64(value)
        if (ns === undefined) throw new BuiltinError("'CurrentTime' should be a valid int64 number")
        out.nowMs = Number(ns / 1_000_000n)
        break
      }
      case 'MaxConstraintComparisons':
        // Go bounds name-constraint work with it; the chains regent checks carry no name constraints.
        if (typeName(value) !== 'number')
          throw new BuiltinError("'MaxConstraintComparisons' should be a number")
        if (int64(value) === undefined)
          throw new BuiltinError("'MaxConstraintComparisons' should be a valid number")
        break
      case 'KeyUsages': {
        if (!Array.isArray(value) && !isSet(value))
          throw new BuiltinError("'KeyUsages' should be an Array or Set")
        const invalid: string[] = []
        for (const entry of Array.isArray(value) ? value : [...value]) {
          if (typeof entry !== 'string') continue
          const name = trimQuotes(entry)
          const id = USAGE_BY_NAME.get(name)
          if (id === undefined) invalid.push(name)
          else out.keyUsages.push(id)
        }
        if (invalid.length)
          throw new BuiltinError(`invalid entries for 'KeyUsages' found: [${invalid.join(' ')}]`)
        break
      }
      default:
        throw new BuiltinError('invalid key option')
    }
  }
  return out
}

/**
 * Go's checkChainForKeyUsage: walking from the root down, each certificate that lists extended
 * key usages (and not "any") strikes out the requested usages it does not list; the chain is
 * acceptable while one requested usage remains.
 */
function chainAllowsUsage(chain: ReadonlyArray<{ cert: X509Certificate }>, requested: number[]): boolean {
  const usages = requested.length ? requested : [SERVER_AUTH]
  if (usages.includes(ANY_USAGE)) return true
  let remaining = new Set(usages)
  for (let i = chain.length - 1; i >= 0; i--) {
    const { known, unknown } = extKeyUsages((chain[i] as { cert: X509Certificate }).cert)
    if (known.length === 0 && unknown.length === 0) continue
    if (known.includes(ANY_USAGE)) continue
    remaining = new Set([...remaining].filter((u) => known.includes(u)))
    if (remaining.size === 0) return false
  }
  return true
}

/** Verifies a chain: leaf first, each certificate issued and signed by the next, the last self-signed. */
export function verifyChain(
  chain: ReadonlyArray<{ cert: X509Certificate }>,
  nowMs: number,
  options: Omit<VerifyOptions, 'nowMs'>,
): boolean {
  if (chain.length < 2) return false
  for (let i = 0; i < chain.length; i++) {
    const { cert } = chain[i] as { cert: X509Certificate }
    if (nowMs < Date.parse(cert.validFrom) || nowMs > Date.parse(cert.validTo)) return false
    const issuer = (chain[i + 1] ?? chain[i]) as { cert: X509Certificate }
    if (i > 0 && !cert.ca) return false
    if (!cert.checkIssued(issuer.cert) || !cert.verify(issuer.cert.publicKey)) return false
  }
  const leaf = (chain[0] as { cert: X509Certificate }).cert
  if (options.dnsName !== undefined && options.dnsName !== '' && !leaf.checkHost(options.dnsName))
    return false
  return chainAllowsUsage(chain, options.keyUsages)
}
