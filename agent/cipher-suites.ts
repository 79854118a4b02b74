/**
 * `--tls-cipher-suites` takes IANA names, as OPA (Go's `crypto/tls`) does; Node's TLS stack wants
 * OpenSSL names. This table holds the suites Go knows that OpenSSL can offer (the mapping is
 * OpenSSL's own, `openssl ciphers -stdname`; a test checks it there). TLS 1.3 suites are accepted
 * and, as in Go, not configurable: they stay on whatever the list says.
 */

const TLS12_SUITES: Readonly<Record<string, string>> = {
  TLS_RSA_WITH_3DES_EDE_CBC_SHA: 'DES-CBC3-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA: 'AES128-SHA',
  TLS_RSA_WITH_AES_256_CBC_SHA: 'AES256-SHA',
  TLS_RSA_WITH_AES_128_CBC_SHA256: 'AES128-SHA256',
  TLS_RSA_WITH_AES_128_GCM_SHA256: 'AES128-GCM-SHA256',
  TLS_RSA_WITH_AES_256_GCM_SHA384: 'AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA: 'ECDHE-ECDSA-AES128-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_256_CBC_SHA: 'ECDHE-ECDSA-AES256-SHA',
  TLS_ECDHE_RSA_WITH_3DES_EDE_CBC_SHA: 'ECDHE-RSA-DES-CBC3-SHA',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA: 'ECDHE-RSA-AES128-SHA',
  TLS_ECDHE_RSA_WITH_AES_256_CBC_SHA: 'ECDHE-RSA-AES256-SHA',
  TLS_ECDHE_ECDSA_WITH_AES_128_CBC_SHA256: 'ECDHE-ECDSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_CBC_SHA256: 'ECDHE-RSA-AES128-SHA256',
  TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256: 'ECDHE-RSA-AES128-GCM-SHA256',
  TLS_ECDHE_ECDSA_WITH_AES_128_GCM_SHA256: 'ECDHE-ECDSA-AES128-GCM-SHA256',
  TLS_ECDHE_RSA_WITH_AES_256_GCM_SHA384: 'ECDHE-RSA-AES256-GCM-SHA384',
  TLS_ECDHE_ECDSA_WITH_AES_256_GCM_SHA384: 'ECDHE-ECDSA-AES256-GCM-SHA384',
  TLS_ECDHE_RSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-RSA-CHACHA20-POLY1305',
  TLS_ECDHE_ECDSA_WITH_CHACHA20_POLY1305_SHA256: 'ECDHE-ECDSA-CHACHA20-POLY1305',
}

/** TLS 1.3 suites: the same name in IANA's and OpenSSL's lists. */
export const TLS13_SUITES = [
  'TLS_AES_128_GCM_SHA256',
  'TLS_AES_256_GCM_SHA384',
  'TLS_CHACHA20_POLY1305_SHA256',
]

/** Go's RC4 suites: Go lists them as insecure; OpenSSL 3 no longer has RC4 at all. */
const REMOVED = new Set([
  'TLS_RSA_WITH_RC4_128_SHA',
  'TLS_ECDHE_ECDSA_WITH_RC4_128_SHA',
  'TLS_ECDHE_RSA_WITH_RC4_128_SHA',
])

/** An IANA name this server cannot offer. */
export class CipherSuiteError extends Error {}

/** The IANA → OpenSSL table (for docs and tests). */
export function knownCipherSuites(): Readonly<Record<string, string>> {
  return TLS12_SUITES
}

/**
 * The OpenSSL `ciphers` string for the IANA names given (comma-separated or repeated), TLS 1.3's
 * suites kept as Go keeps them.
 * @throws CipherSuiteError naming the first unknown suite and where to find the list.
 */
export function opensslCipherList(ianaNames: readonly string[]): string {
  const chosen: string[] = []
  for (const name of ianaNames
    .flatMap((n) => n.split(','))
    .map((n) => n.trim())
    .filter(Boolean)) {
    const openssl = TLS12_SUITES[name]
    if (openssl) chosen.push(openssl)
    else if (TLS13_SUITES.includes(name)) continue
    else if (REMOVED.has(name))
      throw new CipherSuiteError(`--tls-cipher-suites: ${name} (RC4) is not available in Node's OpenSSL`)
    else
      throw new CipherSuiteError(
        `--tls-cipher-suites: unknown cipher suite ${JSON.stringify(name)} (expected IANA names such as TLS_ECDHE_RSA_WITH_AES_128_GCM_SHA256; see docs/run.md)`,
      )
  }
  return [...TLS13_SUITES, ...chosen].join(':')
}
