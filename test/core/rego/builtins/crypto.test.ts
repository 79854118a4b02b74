import { execFileSync } from 'node:child_process'
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs'
import { tmpdir } from 'node:os'
import { join } from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { toJSONText } from '../../../../core/rego/values/index.js'
import { call, callWith, expectError, json, testContext } from './helpers.js'

describe('digests and HMACs', () => {
  it('hash UTF-8 input', () => {
    expect(json('crypto.md5', 'lorem ipsum')).toBe('"80a751fde577028640c419000e33eba6"')
    expect(json('crypto.sha256', 'lorem ipsum')).toBe(
      '"5e2bf57d3f40c4b6df69daf1936cb766f832374b4fc0259a7cbff06e2f70f269"',
    )
    expect(json('crypto.sha1', 'lorem ipsum')).toBe('"bfb7759a67daeb65410490b4d98bb9da7d1ea2ce"')
    expect(json('crypto.hmac.md5', 'åäöçß🥲♙Ω', '秘密の')).toBe('"20a8743c2157ac60b7e8b79c83651b8d"')
    expect(json('crypto.hmac.sha256', 'hello', 'key')).toBe(
      '"9307b3b915efb5171ff14d8cb55fbcc798c6c0ef1456d66ded1a6aa723a58b7b"',
    )
  })

  it('hmac.equal compares without short-circuiting on length', () => {
    expect(json('crypto.hmac.equal', 'abc', 'abc')).toBe('true')
    expect(json('crypto.hmac.equal', 'abc', 'abd')).toBe('false')
    expect(json('crypto.hmac.equal', '31b6db9e', '31b6')).toBe('false')
  })
})

describe('X.509 with real certificates', () => {
  let dir = ''
  const pem: Record<string, string> = {}
  const openssl = (...args: string[]) => execFileSync('openssl', args, { cwd: dir, stdio: 'pipe' })

  beforeAll(() => {
    dir = mkdtempSync(join(tmpdir(), 'regent-x509-'))
    openssl(
      'req',
      '-x509',
      '-newkey',
      'ec',
      '-pkeyopt',
      'ec_paramgen_curve:P-256',
      '-nodes',
      '-keyout',
      'root.key',
      '-out',
      'root.pem',
      '-days',
      '30',
      '-subj',
      '/O=Regent Test/CN=Regent Root CA',
      '-addext',
      'basicConstraints=critical,CA:TRUE',
      '-addext',
      'keyUsage=critical,keyCertSign,cRLSign',
    )
    openssl(
      'req',
      '-newkey',
      'rsa:2048',
      '-nodes',
      '-keyout',
      'leaf.key',
      '-out',
      'leaf.csr',
      '-subj',
      '/C=XX/O=Regent/CN=leaf.example.com',
    )
    writeFileSync(join(dir, 'ext.cnf'), 'subjectAltName=DNS:leaf.example.com,URI:spiffe://example.com/leaf\n')
    openssl(
      'x509',
      '-req',
      '-in',
      'leaf.csr',
      '-CA',
      'root.pem',
      '-CAkey',
      'root.key',
      '-CAcreateserial',
      '-out',
      'leaf.pem',
      '-days',
      '10',
      '-extfile',
      'ext.cnf',
    )
    openssl('genrsa', '-traditional', '-out', 'rsa.key', '2048')
    for (const f of ['root.pem', 'leaf.pem', 'leaf.key', 'leaf.csr', 'rsa.key'])
      pem[f] = readFileSync(join(dir, f), 'utf8')
  })
  afterAll(() => rmSync(dir, { recursive: true, force: true }))

  it('parse_certificates reads PEM, base64 PEM and base64 DER', () => {
    const out = JSON.parse(json('crypto.x509.parse_certificates', pem['leaf.pem'] + (pem['root.pem'] ?? '')))
    expect(out.map((c: { Subject: { CommonName: string } }) => c.Subject.CommonName)).toEqual([
      'leaf.example.com',
      'Regent Root CA',
    ])
    expect(out[0].DNSNames).toEqual(['leaf.example.com'])
    expect(out[0].URIStrings).toEqual(['spiffe://example.com/leaf'])
    expect(out[0].Subject.Country).toEqual(['XX'])
    expect(out[1].URIStrings).toBeNull()
    expect(out[1].IsCA).toBe(true)
    const b64 = Buffer.from(pem['leaf.pem'] ?? '').toString('base64')
    expect(JSON.parse(json('crypto.x509.parse_certificates', b64))[0].Subject.CommonName).toBe(
      'leaf.example.com',
    )
    const der = (pem['leaf.pem'] ?? '').replace(/-----[A-Z ]+-----|\s/g, '')
    expect(JSON.parse(json('crypto.x509.parse_certificates', der))[0].Issuer.CommonName).toBe(
      'Regent Root CA',
    )
    expectError(
      'eval_builtin_error',
      'x509: malformed certificate',
      'crypto.x509.parse_certificates',
      'YmFkc3RyaW5n',
    )
    expectError('eval_builtin_error', 'illegal base64', 'crypto.x509.parse_certificates', 'foobar')
    expect(json('crypto.x509.parse_certificates', '')).toBe('null')
  })

  it('parse_and_verify_certificates checks the chain (root first) against the query time', () => {
    const chain = (pem['root.pem'] ?? '') + (pem['leaf.pem'] ?? '')
    const [valid, certs] = call('crypto.x509.parse_and_verify_certificates', chain) as [boolean, unknown[]]
    expect(valid).toBe(true)
    expect(toJSONText(certs as never)).toContain('leaf.example.com')
    const later = testContext({ timeNs: BigInt(Date.now() + 20 * 86400_000) * 1_000_000n })
    expect(toJSONText(callWith(later, 'crypto.x509.parse_and_verify_certificates', chain) as never)).toBe(
      '[false,[]]',
    )
    expect(json('crypto.x509.parse_and_verify_certificates', pem['leaf.pem'])).toBe('[false,[]]')
    expect(
      json('crypto.x509.parse_and_verify_certificates_with_options', chain, { DNSName: 'other.example.com' }),
    ).toBe('[false,[]]')
    expect(
      JSON.parse(
        json('crypto.x509.parse_and_verify_certificates_with_options', chain, {
          DNSName: 'leaf.example.com',
        }),
      )[0],
    ).toBe(true)
  })

  it('parse_certificate_request reads the subject', () => {
    const req = JSON.parse(json('crypto.x509.parse_certificate_request', pem['leaf.csr']))
    expect(req.Subject.CommonName).toBe('leaf.example.com')
    expect(
      JSON.parse(
        json('crypto.x509.parse_certificate_request', Buffer.from(pem['leaf.csr'] ?? '').toString('base64')),
      ).Subject.Organization,
    ).toEqual(['Regent'])
    expectError(
      'eval_builtin_error',
      'asn1: structure error',
      'crypto.x509.parse_certificate_request',
      'YmFkc3RyaW5n',
    )
  })

  it('keys come back as JWKs; key pairs must match', () => {
    const rsa = JSON.parse(json('crypto.x509.parse_rsa_private_key', pem['rsa.key']))
    expect(rsa.kty).toBe('RSA')
    expect(Object.keys(rsa).sort()).toEqual(['d', 'dp', 'dq', 'e', 'kty', 'n', 'p', 'q', 'qi'])
    expectError('eval_builtin_error', 'illegal base64', 'crypto.x509.parse_rsa_private_key', 'invalid')
    expect(
      JSON.parse(json('crypto.parse_private_keys', (pem['rsa.key'] ?? '') + (pem['leaf.key'] ?? ''))).length,
    ).toBe(2)
    expect(json('crypto.parse_private_keys', 'nope')).toBe('[]')
    // Only PKCS #1, PKCS #8 and SEC 1 blocks are read: an encrypted or OpenSSH key is skipped.
    const skipped = (label: string) => `-----BEGIN ${label}-----\nAAAA\n-----END ${label}-----\n`
    expect(
      JSON.parse(
        json(
          'crypto.parse_private_keys',
          skipped('ENCRYPTED PRIVATE KEY') + (pem['leaf.key'] ?? '') + skipped('OPENSSH PRIVATE KEY'),
        ),
      ).length,
    ).toBe(1)
    expect(json('crypto.parse_private_keys', '')).toBe('null')
    const pair = JSON.parse(json('crypto.x509.parse_keypair', pem['leaf.pem'], pem['leaf.key']))
    expect(pair.Certificate[0]).toBe((pem['leaf.pem'] ?? '').replace(/-----[A-Z ]+-----|\s/g, ''))
    // A base64 DER key (no PEM inside) is read as OPA wraps it: a PRIVATE KEY block.
    const derKey = (pem['leaf.key'] ?? '').replace(/-----[A-Z ]+-----|\s/g, '')
    expect(JSON.parse(json('crypto.x509.parse_keypair', pem['leaf.pem'], derKey)).PrivateKey.kty).toBe('RSA')
    expectError(
      'eval_builtin_error',
      'tls: failed to parse private key',
      'crypto.x509.parse_keypair',
      pem['leaf.pem'],
      Buffer.from('not a key').toString('base64'),
    )
    expectError(
      'eval_builtin_error',
      'private key does not match',
      'crypto.x509.parse_keypair',
      pem['leaf.pem'],
      pem['rsa.key'],
    )
  })
})
